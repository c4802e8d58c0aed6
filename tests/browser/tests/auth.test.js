// The console against a diagd with server.auth_tokens: the page itself
// loads without a token, the first API call's 401 asks for one, a wrong one
// is refused and asked again, the right one is kept for the tab
// (sessionStorage) and sent as a bearer header. The server speaks English
// and the browser Chinese: the page speaks the server's language.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startDiagd, openPage, screenshot, closeBrowser } from "../lib/harness.js";

let diagd;
before(async () => { diagd = await startDiagd({ authTokens: ["s3cret-token"], language: "en" }); });
after(async () => { await closeBrowser(); await diagd.stop(); });

test("a token prompt: asked on a 401, asked again after a wrong one, kept for the tab", async () => {
  const { page, context, errors } = await openPage(diagd.base, { locale: "zh-CN" });
  const authHeaders = [];
  page.on("request", (r) => { if (r.url().includes("/api/")) authHeaders.push(r.headers().authorization ?? null); });
  await page.goto(`${diagd.base}/#/history`);
  const dialog = page.locator("dialog.token-dialog");
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /needs an access token/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  await screenshot(page, "token-prompt", dialog);
  await page.fill("#token-input", "wrong");
  await page.press("#token-input", "Enter");
  await page.locator("dialog.token-dialog .warn").waitFor();
  assert.match(await page.locator("dialog.token-dialog").textContent(), /refused/);
  await page.fill("#token-input", "s3cret-token");
  await page.press("#token-input", "Enter");
  await page.locator("table.runs").waitFor();
  await page.locator("dialog.token-dialog").waitFor({ state: "detached" });
  assert.equal(await page.evaluate(() => sessionStorage.getItem("diagd.token")), "s3cret-token");

  await page.click("#nav-ask");
  await page.fill("#question", "你好");
  await page.press("#question", "Enter");
  await page.locator("article.turn .answer").waitFor();
  assert.equal(await page.locator("dialog.token-dialog").count(), 0, "no second prompt");
  assert.deepEqual(authHeaders.slice(0, 2), [null, "Bearer wrong"]);
  assert.equal(authHeaders.at(-1), "Bearer s3cret-token");
  assert.deepEqual(errors.filter((e) => !e.includes("401")), []);
  await context.close();
});
