// The console against the real diagd binary and the scripted model server
// (it plays scripted replies with delays; it is no model), for runs that
// must be slow: Stop in the middle of an investigation, a stream dropped
// mid-run and resumed, a reload mid-run; and for text that looks like HTML
// (a log line and a root cause carrying `<img src=x onerror=alert(1)>`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startDiagd, openPage, screenshot, closeBrowser, waitFor } from "../lib/harness.js";
import { startModelServer, toolCalls, answer } from "../lib/model_server.js";
import { startDroppingProxy } from "../lib/proxy.js";

const XSS = "<img src=x onerror=alert(1)>";
const HIKARI = "HikariPool-1 - Connection is not available";
let diagd;
let model;
let delayMs = 400;
let plan = "slow";

// The diagnosis agent's turns, by how many tool results it has seen.
function agentTurn(toolResults) {
  if (plan === "xss") {
    if (toolResults === 0) return toolCalls([["call_1", "query_logs", { topic: "xss-service", query: "level:ERROR" }]]);
    return answer({ conclusion: { root_cause: `${XSS} 导致 xss-service 报错`, confidence: "HIGH",
      evidence: [{ tool_call_id: "call_1", quote: XSS }] } });
  }
  const calls = [
    ["call_1", "query_logs", { topic: "payment-service", query: "level:ERROR HikariPool" }],
    ["call_2", "query_logs", { topic: "order-service", query: "level:ERROR" }],
    ["call_3", "query_logs", { topic: "payment-db", query: "level:WARN,ERROR" }],
  ];
  if (toolResults < calls.length) return toolCalls([calls[toolResults]], toolResults ? `call_${toolResults}` : null);
  return answer({ conclusion: { root_cause: "payment-service 数据库连接池耗尽", confidence: "MEDIUM",
    evidence: [{ tool_call_id: "call_1", quote: HIKARI }] }, next_steps: ["检查 payment-db 慢查询"] });
}

before(async () => {
  model = await startModelServer((component, request) => {
    if (component === "ROUTER") return { message: answer({ route: "DIAGNOSIS" }) };
    if (component === "SEMANTIC_GUARD") return { message: answer({ verdict: "SUPPORTED" }) };
    return { message: agentTurn(request.toolResults), delayMs };
  });
  diagd = await startDiagd({
    modelUrl: model.baseUrl,
    extraLogs: { "xss-service.jsonl": [JSON.stringify({ timestamp: "2026-11-29T10:10:00.000Z", level: "ERROR",
      service: "xss-service", message: `${XSS} request failed` })] },
  });
});
after(async () => { await closeBrowser(); await diagd.stop(); await model.close(); });

async function ask(page, text) {
  await page.selectOption("#route", "diagnosis");
  await page.fill("#question", text);
  await page.press("#question", "Enter");
}

async function indexes(turn) {
  return turn.locator("tr.progress-row").evaluateAll((trs) => trs.map((tr) => tr.dataset.index));
}

test("Stop cancels a run mid-investigation: a fallback from what it checked", async () => {
  plan = "slow";
  delayMs = 1500;
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/`);
  await ask(page, "payment-service 为什么超时？");
  const turn = page.locator("article.turn").last();
  await turn.locator("tr.progress-row").first().waitFor();
  assert.equal(await turn.locator("button.stop").isEnabled(), true);
  await screenshot(page, "live", turn);
  const clock = await turn.locator(".clock").textContent();
  await page.waitForTimeout(250);
  assert.notEqual(await turn.locator(".clock").textContent(), clock, "the clock runs");
  await turn.locator("button.stop").click();
  await turn.locator(".fallback").waitFor();
  assert.ok(await turn.locator("tr.progress-row").count() < 3, "stopped before the end of the script");
  const runId = await turn.getAttribute("data-run-id");
  const record = await (await diagd.api(`/api/v1/runs/${runId}`)).json();
  assert.equal(record.stop_reason, "CANCELLED");
  await turn.locator("details.run-details summary").click();
  await turn.locator(".stop-reason").waitFor();
  assert.equal(await turn.locator(".stop-reason").textContent(), "CANCELLED");
  await screenshot(page, "cancelled", turn.locator(".fallback .plain, .fallback .checked-section").first());
  assert.deepEqual(errors, []);
  await context.close();
});

test("a stream dropped mid-run resumes with Last-Event-ID after a backoff, every step once", async (t) => {
  plan = "slow";
  delayMs = 400;
  const proxy = await startDroppingProxy(diagd.base, { cutAfter: 3, refuseResumes: 1 });
  t.after(() => proxy.close());
  const { page, context, errors, requests } = await openPage(proxy.base, { locale: "en-US", lang: "en" });
  await page.goto(`${proxy.base}/`);
  await ask(page, "payment-service 为什么超时？（断线）");
  const turn = page.locator("article.turn").last();
  await turn.locator(".diagnosis").waitFor({ timeout: 20000 });
  assert.equal(proxy.seen.cuts, 1);
  // Resumed after the last event the page got before the cut (3, or 2 when
  // the browser dropped the cut's last bytes with the error), refused
  // once and asked again with the same id.
  const resumes = proxy.seen.resumes;
  assert.equal(resumes.length, 2, String(resumes));
  assert.equal(resumes[0], resumes[1]);
  assert.ok(["2", "3"].includes(resumes[0]), String(resumes));
  assert.deepEqual(await indexes(turn), ["1", "2", "3"], "each step once, in order");
  const statuses = await turn.locator("tr.progress-row").evaluateAll((trs) => trs.map((tr) => tr.dataset.status));
  assert.ok(statuses.every((s) => s === "EVIDENCE_FOUND" || s === "NO_EVIDENCE"), String(statuses));
  assert.match(await turn.locator(".notice").textContent(), /Reconnected/);
  await screenshot(page, "reconnected");
  const origin = new URL(proxy.base).origin;
  assert.deepEqual(requests.filter((url) => new URL(url).origin !== origin), []);
  // The browser itself logs the cut and the refusal; the page logs nothing.
  assert.deepEqual(errors.filter((e) => !/502|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(e)), []);
  await context.close();
});

test("a reload of a live run's page resumes it", async () => {
  plan = "slow";
  delayMs = 700;
  const { page, context, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/`);
  await ask(page, "payment-service 为什么超时？（刷新）");
  await page.locator("tr.progress-row").first().waitFor();
  await page.waitForURL(/#\/runs\//);
  const url = page.url();
  await page.reload();
  assert.equal(page.url(), url);
  const turn = page.locator("article.turn").last();
  await turn.locator(".question").filter({ hasText: "刷新" }).waitFor();
  await turn.locator(".diagnosis").waitFor({ timeout: 20000 });
  assert.deepEqual(await indexes(turn), ["1", "2", "3"], "each step once");
  await screenshot(page, "reloaded");
  assert.deepEqual(errors, []);
  await context.close();
});

test("text from a log line and a model is shown as text, never as HTML", async () => {
  plan = "xss";
  delayMs = 0;
  const { page, context, dialogs, errors } = await openPage(diagd.base, { locale: "en-US", lang: "en" });
  await page.goto(`${diagd.base}/`);
  await ask(page, XSS);
  const turn = page.locator("article.turn").last();
  await turn.locator(".diagnosis").waitFor();
  assert.equal(await turn.locator(".question").textContent(), XSS);
  assert.match(await turn.locator(".root-cause-text").textContent(), /<img src=x onerror=alert\(1\)> 导致/);
  await turn.locator(".evidence button.quote").first().click();
  await page.locator("dialog.observation mark").waitFor();
  assert.equal(await page.locator("dialog.observation mark").textContent(), XSS);
  assert.match(await page.locator(".observation-text").textContent(), /<img src=x onerror=alert\(1\)> request failed/);
  await screenshot(page, "xss-as-text", page.locator("dialog.observation"));
  assert.equal(await page.locator("img").count(), 0, "no image element was made");
  await page.waitForTimeout(200);
  assert.deepEqual(dialogs, [], "no alert fired");
  assert.deepEqual(errors, []);
  await context.close();
});
