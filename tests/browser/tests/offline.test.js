// The console against the real diagd binary with the offline provider (a
// rule-based agent that really diagnoses the demo incident): a diagnosis
// streaming in, a quote highlighted in its observation, a fallback, a
// follow-up in the same conversation, a long conversation read a page at a
// time, Chinese input through an input
// method, the history's filters and search, the run page's timeline, and
// every request the page makes going to the server itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startDiagd, openPage, screenshot, closeBrowser, waitFor } from "../lib/harness.js";

const INCIDENT = "订单服务从 10 点左右开始大量 500，为什么？";
let diagd;

before(async () => { diagd = await startDiagd(); });
after(async () => { await closeBrowser(); await diagd.stop(); });

async function ask(page, text, route = "auto") {
  await page.selectOption("#route", route);
  await page.fill("#question", text);
  await page.press("#question", "Enter");
}

function lastTurn(page) {
  return page.locator("article.turn").last();
}

test("ask: a diagnosis streams in, each quote opens its observation highlighted, all from the server", async () => {
  const { page, context, requests, dialogs, errors } = await openPage(diagd.base);
  await page.goto(`${diagd.base}/`);
  await ask(page, INCIDENT);
  const turn = lastTurn(page);
  await turn.locator(".diagnosis").waitFor();
  assert.match(await turn.locator(".route-label").textContent(), /DIAGNOSIS/);
  const rows = turn.locator("tr.progress-row");
  assert.ok(await rows.count() >= 5, "a row per tool call");
  const statuses = await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.status));
  assert.ok(statuses.every((s) => s !== "STARTED"), `every call ended: ${statuses}`);
  assert.ok(statuses.includes("EVIDENCE_FOUND"));
  assert.ok((await turn.locator(".root-cause-text").textContent()).length > 10);
  assert.match(page.url(), /#\/runs\/[0-9a-f]+$/, "the run id in the URL");

  const quote = turn.locator(".evidence button.quote").first();
  const quoteText = await quote.textContent();
  await quote.click();
  const mark = page.locator("dialog.observation mark");
  await mark.waitFor();
  const marked = await mark.textContent();
  assert.ok(marked === quoteText || marked === JSON.stringify(quoteText).slice(1, -1), `${marked} vs ${quoteText}`);
  await screenshot(page, "observation", page.locator("dialog.observation"));
  await page.keyboard.press("Escape");

  await screenshot(page, "diagnosis");
  const origin = new URL(diagd.base).origin;
  const outside = requests.filter((url) => new URL(url).origin !== origin);
  assert.deepEqual(outside, [], "every request goes to the server");
  assert.ok(requests.some((url) => url.endsWith("/ui/app.js")));
  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a fallback in plain words, then a follow-up in the same conversation", async () => {
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/`);
  await ask(page, "inventory-service 为什么慢？", "diagnosis");
  const first = lastTurn(page);
  await first.locator(".fallback").waitFor();
  assert.match(await first.locator(".fallback .plain").textContent(), /evidence/);
  assert.ok(await first.locator(".checked-section tr").count() >= 2, "what was checked");
  assert.ok(await first.locator(".observed-facts li").count() >= 1, "observed facts");
  await screenshot(page, "fallback", first.locator(".fallback"));

  const firstRun = await first.getAttribute("data-run-id");
  assert.equal(await page.locator("label[for=question]").textContent(), "Follow-up in this conversation");
  await ask(page, "慢查询怎么处理？", "knowledge");
  const second = lastTurn(page);
  await second.locator(".answer").waitFor();
  assert.equal(await page.locator("article.turn").count(), 2);
  const secondRun = await second.getAttribute("data-run-id");
  const one = await (await diagd.api(`/api/v1/runs/${firstRun}`)).json();
  const two = await (await diagd.api(`/api/v1/runs/${secondRun}`)).json();
  assert.equal(two.conversation_id, one.conversation_id, "the follow-up joined the conversation");
  const citations = two.result.answer.citations;
  assert.ok(citations.length >= 1, "the demo's knowledge answer cites its documents");
  assert.equal(await second.locator(".citations li").count(), citations.length);
  assert.match(await second.locator(".citations").textContent(), new RegExp(citations[0].title.slice(0, 8).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  await screenshot(page, "follow-up");

  // The follow-up's own page lists the conversation's earlier question.
  await page.reload();
  await page.locator("nav.earlier a").waitFor();
  assert.equal(await page.locator("nav.earlier a").getAttribute("href"), `#/runs/${firstRun}`);
  await page.locator("article.turn .answer").waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test("a long conversation's earlier questions come a page at a time, whatever its id", async () => {
  // 22 runs in a conversation whose id needs encoding in a URL.
  const conversation = "ops/long-talk?#1%";
  for (let i = 0; i < 22; i += 1) {
    const reply = await diagd.api("/api/v1/chat", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ message: `follow-up ${i}`, route: "chat", conversation_id: conversation }),
    });
    assert.equal(reply.status, 200);
  }
  const all = await (await diagd.api(`/api/v1/conversations/${encodeURIComponent(conversation)}?limit=200`)).json();
  assert.equal(all.runs.length, 22);
  const last = all.runs[21].run_id;
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/#/runs/${last}`);
  const links = page.locator("nav.earlier a");
  await links.first().waitFor();
  const more = page.locator("nav.earlier button.more-earlier");
  await more.waitFor();
  assert.equal(await links.count(), 20, "the first page");
  assert.equal(await more.textContent(), "More of this conversation");
  await screenshot(page, "conversation-pages", page.locator("nav.earlier"));
  await more.click();
  await waitFor(async () => (await links.count()) === 21, { what: "the second page" });
  assert.equal(await more.count(), 0, "this run reached: nothing more to read");
  assert.equal(await links.last().getAttribute("href"), `#/runs/${all.runs[20].run_id}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("Chinese through an input method: Enter while composing does not send", async () => {
  const { page, context } = await openPage(diagd.base);
  await page.goto(`${diagd.base}/`);
  assert.equal(await page.locator("#send").textContent(), "发送");
  let chats = 0;
  page.on("request", (r) => { if (r.url().endsWith("/api/v1/chat")) chats += 1; });
  await page.focus("#question");
  // What an IME does: compositionstart, keydown Enter (isComposing, 229)
  // to pick a candidate, the text, compositionend.
  await page.evaluate(() => {
    const box = document.getElementById("question");
    box.dispatchEvent(new CompositionEvent("compositionstart", { bubbles: true, data: "" }));
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", keyCode: 229, isComposing: true, bubbles: true, cancelable: true }));
    box.value = "你好";
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", isComposing: false, bubbles: true, cancelable: true }));
  });
  await page.waitForTimeout(300);
  assert.equal(chats, 0, "no send while the input method composes");
  assert.equal(await page.inputValue("#question"), "你好");
  await page.evaluate(() => {
    document.getElementById("question").dispatchEvent(new CompositionEvent("compositionend", { bubbles: true, data: "你好" }));
  });
  await page.keyboard.press("Shift+Enter");
  assert.equal(await page.inputValue("#question"), "你好\n", "Shift+Enter breaks the line");
  await page.keyboard.press("Enter");
  await lastTurn(page).locator(".answer").waitFor();
  assert.equal(chats, 1);
  await screenshot(page, "chinese-chat");

  // The switch on the page: English, kept across a reload.
  await page.selectOption("#lang", "en");
  await page.locator("article.turn .answer").waitFor();
  assert.equal(await page.locator("#send").textContent(), "Send");
  assert.equal(await page.locator("#nav-history").textContent(), "History");
  await page.reload();
  assert.equal(await page.locator("#send").textContent(), "Send");
  await context.close();
});

test("the page speaks the server's language, not the browser's, until the user picks one", async () => {
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US" });
  await page.goto(`${diagd.base}/`);
  assert.equal(await page.evaluate(() => navigator.language), "en-US");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  assert.equal(await page.locator("#send").textContent(), "发送");
  assert.equal(await page.locator("#nav-history").textContent(), "历史");
  assert.equal(await page.evaluate(() => localStorage.getItem("diagd.lang")), null, "no pick made yet");
  await page.selectOption("#lang", "en");
  await page.goto(`${diagd.base}/#/history`);
  await page.reload();
  assert.equal(await page.locator("#nav-history").textContent(), "History", "the pick wins from then on");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  assert.deepEqual(errors, []);
  await context.close();
});

test("history: filters and search find runs, a run opens its page with the timeline", async () => {
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/#/history`);
  await page.locator("tr.run-row").first().waitFor();
  assert.ok(await page.locator("tr.run-row").count() >= 4);
  await page.selectOption("#filter-outcome", "FALLBACK");
  await page.click(".filters button[type=submit]");
  await page.waitForFunction(() => [...document.querySelectorAll("tr.run-row")].length > 0
    && [...document.querySelectorAll("tr.run-row td:nth-child(5)")].every((td) => td.textContent.startsWith("FALLBACK")));
  assert.match(page.url(), /outcome=FALLBACK/);
  await page.selectOption("#filter-outcome", "");
  await page.fill("#filter-q", "慢查询");
  await page.click(".filters button[type=submit]");
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll("tr.run-row")];
    return rows.length === 1 && rows[0].textContent.includes("慢查询怎么处理");
  });
  await page.fill("#filter-q", "订单服务");
  await page.selectOption("#filter-route", "diagnosis");
  await page.click(".filters button[type=submit]");
  await page.waitForFunction(() => [...document.querySelectorAll("tr.run-row")].length === 1);
  await screenshot(page, "history", page.locator("main"));

  // Pages of two: "Next page" follows the cursor, no run twice.
  await page.goto(`${diagd.base}/#/history?limit=2`);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2);
  await page.click("#more");
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 4);
  const ids = await page.locator("tr.run-row").evaluateAll((trs) => trs.map((tr) => tr.dataset.runId));
  assert.equal(new Set(ids).size, 4, "no run twice across pages");
  await page.goto(`${diagd.base}/#/history?q=${encodeURIComponent("订单服务")}&route=diagnosis`);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 1);

  await page.click("tr.run-row a");
  const details = page.locator("details.run-details[open]");
  await details.locator("svg.timeline").waitFor();
  assert.equal(await details.locator(".run-status").textContent(), "SUCCEEDED");
  const toolBars = await details.locator("svg.timeline g.bar-tool").count();
  assert.ok(toolBars >= 5, `a bar per tool call: ${toolBars}`);
  assert.ok(await details.locator("svg.timeline g.bar-model").count() >= 1, "model calls as bars");
  assert.ok(await details.locator("table.tokens tbody tr").count() >= 1, "tokens by component");
  assert.match(await details.locator(".reconciliation").textContent(), /reconciled/);
  assert.match(await details.locator(".release").textContent(), /evidence_guard/);
  await page.locator("svg.timeline").scrollIntoViewIfNeeded();
  await screenshot(page, "run-page", details.locator(".timeline-section"));
  assert.deepEqual(errors, []);
  await context.close();
});

test("a phone in the dark: the page fits its width", async () => {
  const { page, context } = await openPage(diagd.base, { colorScheme: "dark", viewport: { width: 390, height: 800 } });
  await page.goto(`${diagd.base}/#/history`);
  await page.locator("tr.run-row").first().waitFor();
  await page.click("tr.run-row a");
  await page.locator(".result .diagnosis, .result .fallback, .result .answer").first().waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no sideways scroll on a phone: ${overflow}px`);
  await screenshot(page, "phone-dark");
  await context.close();
});
