// What every browser test shares: the real diagd binary serving a config
// over the demo workspace (a temp run store, the offline provider or the
// scripted model server), and Debian's chromium driven by playwright-core,
// with every request the page makes recorded and a screenshot per test.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const SOURCE_DIR = path.resolve(here, "../../..");
const DEMO = path.join(SOURCE_DIR, "examples/demo");
const BINARY = process.env.DIAGD_BINARY || path.join(SOURCE_DIR, "build/src/cli/diagd");
const SCREENSHOTS = process.env.DIAGD_SCREENSHOTS || path.join(SOURCE_DIR, "build/browser-screenshots");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Starts `diagd serve`. Options: modelUrl (else the offline provider),
// authTokens, extraLogs ({topic file name: lines}) added to a copy of the
// demo's logs.
export async function startDiagd({ modelUrl = null, authTokens = [], extraLogs = null, language = "zh" } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "diagd-browser-"));
  let logs = path.join(DEMO, "logs");
  if (extraLogs) {
    logs = path.join(dir, "logs");
    fs.cpSync(path.join(DEMO, "logs"), logs, { recursive: true });
    for (const [name, lines] of Object.entries(extraLogs)) fs.writeFileSync(path.join(logs, name), `${lines.join("\n")}\n`);
  }
  const port = await freePort();
  const model = modelUrl
    ? `[model]\nprovider = "openai"\nbase_url = "${modelUrl}"\nname = "scripted"\ntimeout_seconds = 30\n`
    : `[model]\nprovider = "offline"\n`;
  fs.writeFileSync(path.join(dir, "diagd.toml"), [
    `now = "2026-11-29T10:30:00Z"`,
    `language = "${language}"`,
    `[server]`,
    `listen = "127.0.0.1:${port}"`,
    `auth_tokens = ${JSON.stringify(authTokens)}`,
    model,
    `[storage]`,
    `runs = "sqlite:${path.join(dir, "runs.db")}"`,
    `[tools.documents]`,
    `path = "${path.join(DEMO, "docs")}"`,
    `cache_path = "${path.join(dir, "cache")}"`,
    `[tools.logs]`,
    `path = "${logs}"`,
    `default_lookback_minutes = 60`,
    `[tools.mysql.datasources.orders]`,
    `url = "sqlite:${path.join(DEMO, "data/orders.db")}"`,
    ``,
  ].join("\n"));
  const child = spawn(BINARY, ["serve", "--config", path.join(dir, "diagd.toml")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => { stderr += chunk; });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`diagd serve exited ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch { /* not listening yet */ }
    if (i > 300) throw new Error(`diagd serve did not answer: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    base, dir,
    stderr: () => stderr,
    async api(route, options = {}) {
      const headers = { ...(options.headers || {}) };
      if (authTokens.length) headers.Authorization = `Bearer ${authTokens[0]}`;
      return fetch(base + route, { ...options, headers });
    },
    async stop() {
      // SIGTERM lets a run still going finish (up to the grace period): a
      // test's leftover slow run is not worth waiting for.
      const exited = new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
      child.kill("SIGTERM");
      const late = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(late);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let browser = null;

export async function launchBrowser() {
  if (!browser) {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }
  return browser;
}

export async function closeBrowser() {
  if (browser) await browser.close();
  browser = null;
}

// A fresh page on `base`; records every request and dialog and console
// error, which the test checks at its end (`finish`). `lang` ("en", "zh"):
// the language a user picked on the page before (kept in localStorage);
// without it the page speaks the server's language.
export async function openPage(base, { locale = "zh-CN", lang = null, colorScheme = "light", viewport } = {}) {
  const b = await launchBrowser();
  const context = await b.newContext({ locale, colorScheme, viewport: viewport || { width: 1100, height: 900 } });
  if (lang) {
    await context.addInitScript((picked) => {
      if (!localStorage.getItem("diagd.lang")) localStorage.setItem("diagd.lang", picked);
    }, lang);
  }
  const page = await context.newPage();
  const requests = [];
  const dialogs = [];
  const errors = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("dialog", (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
  return { page, context, requests, dialogs, errors };
}

// The whole page as <name>.png; with `part` (a locator), also that part
// alone as <name>-part.png (small: the pictures docs/console.md shows).
export async function screenshot(page, name, part = null) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  if (part) await part.screenshot({ path: path.join(SCREENSHOTS, `${name}-part.png`) });
}

// Waits for `predicate` (async) to hold, polling; for server-side state.
export async function waitFor(predicate, { timeoutMs = 20000, what = "condition" } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
