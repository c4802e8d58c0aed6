// diagd console: ask a question and watch the investigation, read the
// released result and check every quote, browse the history, and read one
// run's whole story (docs/console.md). Plain ES modules, no framework, no
// build step. Every text that came from a user, a model or a tool is put
// into the page as a text node (dom.js), never as HTML.
import { h, clear } from "./dom.js";
import { t, lang, setLang } from "./i18n.js";
import { RunStream, apiFetch, apiJson } from "./api.js";
import { renderResult, renderError, openObservation } from "./result.js";
import { renderDetails } from "./details.js";
import { historyView } from "./history.js";

const view = document.getElementById("view");
let streams = [];       // the live streams of the view shown, closed on leaving it
let thread = null;      // the ask view shown: {turns: Map(run id -> turn), ...}

function closeStreams() {
  for (const stream of streams) stream.close();
  streams = [];
}

// --- the header -----------------------------------------------------------

function renderHeader() {
  const header = document.getElementById("header");
  clear(header);
  const select = h("select", { id: "lang", "aria-label": t("language") },
    h("option", { value: "en" }, "English"), h("option", { value: "zh" }, "中文"));
  select.value = lang();
  select.addEventListener("change", () => {
    setLang(select.value);
    renderHeader();
    // A view with a run still streaming keeps its words until it ends;
    // any other is drawn again in the new language.
    if (thread && thread.busy) return;
    thread = null;
    route();
  });
  header.append(
    h("a", { href: "#/", class: "brand" }, t("title")),
    h("nav", { "aria-label": "main" },
      h("a", { href: "#/", id: "nav-ask" }, t("nav_ask")),
      h("a", { href: "#/history", id: "nav-history" }, t("nav_history"))),
    h("label", { class: "lang" }, h("span", { class: "visually-hidden" }, t("language")), select));
  document.title = t("title");
}

// --- one question and its answer -------------------------------------------

const TERMINAL = new Set(["EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR", "REJECTED"]);

function statusLabel(status) {
  return h("span", { class: `status status-${String(status).toLowerCase()}` }, t(status));
}

// A turn: the question, the live investigation (route, clock, Stop, a row
// per tool call) and, once released, the result and the run's details.
function createTurn(question, { startedAt = Date.now(), detailsOpen = false } = {}) {
  const turn = { runId: null, rows: new Map(), finished: false, startedAt };
  const clock = h("span", { class: "clock", "aria-label": t("elapsed") }, "0.0 s");
  const routeLabel = h("span", { class: "route-label" });
  const stop = h("button", { type: "button", class: "stop", disabled: true }, t("stop"));
  const notice = h("p", { class: "notice", role: "status" });
  const rows = h("tbody");
  const table = h("table", { class: "progress" },
    h("caption", {}, t("investigation")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("tool")),
      h("th", { scope: "col" }, t("scope")), h("th", { scope: "col" }, t("status")))),
    rows);
  table.hidden = true;
  const result = h("div", { class: "result" });
  const details = h("details", { class: "run-details" }, h("summary", {}, t("run_details")));
  details.hidden = true;
  turn.root = h("article", { class: "turn" },
    h("div", { class: "question" }, question),
    h("div", { class: "live" }, routeLabel, clock, stop),
    notice, table, result, details);

  const tick = () => {
    const seconds = (Date.now() - turn.startedAt) / 1000;
    clock.textContent = `${t("elapsed")} ${seconds.toFixed(1)} ${t("seconds")}`;
  };
  tick();
  turn.timer = setInterval(tick, 100);

  stop.addEventListener("click", async () => {
    if (!turn.runId) return;
    stop.disabled = true;
    stop.textContent = t("stopping");
    try {
      await apiFetch(`/api/v1/runs/${encodeURIComponent(turn.runId)}/cancel`, { method: "POST" });
    } catch { /* the stream tells what happened */ }
  });

  let detailsLoaded = false;
  const loadDetails = () => {
    if (detailsLoaded || !turn.runId) return;
    detailsLoaded = true;
    renderDetails(turn.runId, details);
  };
  details.addEventListener("toggle", () => { if (details.open) loadDetails(); });

  turn.setRunId = (id) => {
    turn.runId = id;
    turn.root.dataset.runId = id;
    stop.disabled = turn.finished;
  };

  turn.onEvent = (name, data) => {
    if (name === "run") {
      turn.setRunId(data.run_id);
      if (turn.onRun) turn.onRun(data);
    } else if (name === "route") {
      routeLabel.textContent = `${t("route_label")}: ${data.route ?? ""}`;
    } else if (name === "progress") {
      table.hidden = false;
      let row = turn.rows.get(data.index);
      if (!row) {
        const cell = h("td", { class: "progress-status" });
        row = { tr: h("tr", { class: "progress-row", "data-index": data.index },
          h("td", {}, String(data.index)), h("td", { class: "tool" }, data.tool ?? ""),
          h("td", { class: "scope" }, data.scope ?? ""), cell), cell };
        turn.rows.set(data.index, row);
        rows.append(row.tr);
      }
      clear(row.cell).append(statusLabel(data.status));
      row.tr.dataset.status = data.status;
    } else if (name === "result") {
      clear(result).append(renderResult(data, { runId: turn.runId, onMissing: turn.onMissing }));
    } else if (name === "error") {
      clear(result).append(renderError(data));
    } else if (name === "done") {
      turn.finish();
    }
  };

  turn.onState = (state) => {
    if (state === "reconnecting") notice.textContent = t("reconnecting");
    else if (state === "connected" && notice.textContent) notice.textContent = t("reconnected");
    else if (state === "lost") { notice.textContent = t("gave_up"); turn.finish(); }
  };

  turn.finish = () => {
    if (turn.finished) return;
    turn.finished = true;
    clearInterval(turn.timer);
    tick();
    stop.hidden = true;
    turn.root.classList.add("finished");
    if (turn.runId) {
      details.hidden = false;
      if (detailsOpen) { details.open = true; loadDetails(); }
    }
    if (turn.onFinish) turn.onFinish();
  };

  // A finished run read from its record: the checked tools as rows.
  turn.showRecord = (record) => {
    turn.startedAt = Date.parse(record.created_at) || turn.startedAt;
    const end = Date.parse(record.finished_at);
    if (record.route) routeLabel.textContent = `${t("route_label")}: ${record.route}`;
    const process = record.result && record.result.process ? record.result.process : [];
    process.forEach((call, i) => {
      turn.onEvent("progress", { index: i + 1, tool: call.tool, scope: call.scope, status: call.evidence_status });
    });
    if (record.result) turn.onEvent("result", record.result);
    turn.finish();
    if (end) clock.textContent = `${t("elapsed")} ${((end - turn.startedAt) / 1000).toFixed(1)} ${t("seconds")}`;
  };
  return turn;
}

// --- the ask view: a conversation ------------------------------------------

function askView({ conversationId = null } = {}) {
  closeStreams();
  clear(view);
  const turns = h("section", { class: "thread", "aria-live": "polite", "aria-label": t("conversation") });
  const textarea = h("textarea", { id: "question", rows: 3, "aria-describedby": "question-hint" });
  const routeSelect = h("select", { id: "route" },
    ["auto", "diagnosis", "knowledge", "chat"].map((r) => h("option", { value: r }, t(`route_${r}`))));
  const send = h("button", { type: "submit", class: "primary", id: "send" }, t("send"));
  const fresh = h("button", { type: "button", id: "new-conversation" }, t("new_conversation"));
  const label = h("label", { for: "question" }, t("question"));
  const form = h("form", { class: "composer", "aria-label": t("question") },
    label, textarea,
    h("p", { id: "question-hint", class: "hint" }, t("question_hint")),
    h("div", { class: "composer-row" },
      h("label", { for: "route" }, t("route")), routeSelect, send, fresh));
  view.append(turns, form);
  thread = { turns: new Map(), conversationId, busy: false };
  const local = thread;

  const setConversation = (id) => {
    local.conversationId = id;
    label.textContent = id ? t("follow_up") : t("question");
  };
  setConversation(conversationId);

  const attach = (turn) => {
    turn.onRun = (data) => {
      local.turns.set(data.run_id, turn);
      setConversation(data.conversation_id);
      history.replaceState(null, "", `#/runs/${encodeURIComponent(data.run_id)}`);
    };
    turn.onMissing = () => textarea.focus();
    turn.onFinish = () => { local.busy = false; send.disabled = false; };
    turns.append(turn.root);
  };

  const ask = async () => {
    const message = textarea.value.trim();
    if (!message || local.busy) return;
    local.busy = true;
    send.disabled = true;
    textarea.value = "";
    const turn = createTurn(message);
    attach(turn);
    turn.root.scrollIntoView({ block: "nearest" });
    const body = { message };
    if (routeSelect.value !== "auto") body.route = routeSelect.value;
    if (local.conversationId) body.conversation_id = local.conversationId;
    const stream = new RunStream({ onEvent: turn.onEvent, onState: turn.onState });
    streams.push(stream);
    try {
      await stream.chat(body);
    } catch (error) {
      turn.onEvent("error", { code: error.code || "NETWORK", message: error.message });
    }
    turn.finish();
  };

  let composing = false;
  textarea.addEventListener("compositionstart", () => { composing = true; });
  textarea.addEventListener("compositionend", () => { composing = false; });
  textarea.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    // Enter that confirms an input method's candidate is no send.
    if (event.isComposing || composing || event.keyCode === 229) return;
    event.preventDefault();
    ask();
  });
  form.addEventListener("submit", (event) => { event.preventDefault(); ask(); });
  fresh.addEventListener("click", () => {
    history.replaceState(null, "", "#/");
    askView();
    document.getElementById("question").focus();
  });

  return { attach, setConversation, textarea, local };
}

// The conversation's runs before this one, as links to their pages. The
// conversation comes a page at a time, oldest first (its `next` cursor, as
// the history's); while this run is not reached, a button reads on.
async function earlierTurns(record, turns) {
  const path = `/api/v1/conversations/${encodeURIComponent(record.conversation_id)}`;
  const list = h("ol", {});
  const nav = h("nav", { class: "earlier", "aria-label": t("earlier") }, h("h2", {}, t("earlier")), list);
  const more = h("button", { type: "button", class: "more-earlier" }, t("more_earlier"));
  let next = null;
  const load = async (after) => {
    more.disabled = true;
    let page;
    try {
      page = await apiJson(after ? `${path}?after=${encodeURIComponent(after)}` : path);
    } catch { more.disabled = false; return; }
    let reached = false;
    for (const run of page.runs) {
      if (run.run_id === record.run_id) { reached = true; break; }
      list.append(h("li", {},
        h("a", { href: `#/runs/${encodeURIComponent(run.run_id)}` }, run.question || run.run_id),
        h("span", { class: "meta" }, ` ${run.release_outcome ?? ""}`)));
    }
    if (list.children.length > 0 && !nav.isConnected) turns.prepend(nav);
    more.remove();
    if (!reached && page.next) {
      next = page.next;
      more.disabled = false;
      nav.append(more);
    }
  };
  more.addEventListener("click", () => load(next));
  await load(null);
}

// #/runs/ID: the run's turn in its conversation, live when it still runs,
// with its details open.
async function runView(runId) {
  if (thread && thread.turns.has(runId) && view.querySelector(".thread")) return;  // our own live run
  const ask = askView();
  const placeholder = h("p", { class: "loading" }, t("loading"));
  view.prepend(placeholder);
  let record;
  try {
    record = await apiJson(`/api/v1/runs/${encodeURIComponent(runId)}`);
  } catch (error) {
    placeholder.textContent = error.status === 404 ? t("not_found") : `${t("error")}: ${error.message}`;
    return;
  }
  placeholder.remove();
  ask.setConversation(record.conversation_id);
  earlierTurns(record, view.querySelector(".thread"));
  const turn = createTurn(record.question ?? "", {
    startedAt: Date.parse(record.created_at) || Date.now(), detailsOpen: true });
  ask.attach(turn);
  turn.setRunId(runId);
  ask.local.turns.set(runId, turn);
  if (record.status === "RUNNING") {
    ask.local.busy = true;
    document.getElementById("send").disabled = true;
    const stream = new RunStream({ onEvent: turn.onEvent, onState: turn.onState });
    streams.push(stream);
    try {
      await stream.resume(runId, 0);
    } catch (error) {
      turn.onEvent("error", { code: error.code || "NETWORK", message: error.message });
    }
    turn.finish();
  } else {
    turn.showRecord(record);
  }
}

// --- routing ---------------------------------------------------------------

function route() {
  const hash = location.hash || "#/";
  const run = hash.match(/^#\/runs\/([^/?]+)$/);
  if (run) {
    const id = decodeURIComponent(run[1]);
    if (thread && thread.turns.has(id) && view.querySelector(".thread")) return;
    runView(id);
  } else if (hash.startsWith("#/history")) {
    closeStreams();
    thread = null;
    historyView(view, new URLSearchParams(hash.split("?")[1] || ""));
  } else {
    askView();
  }
}

window.addEventListener("hashchange", route);
renderHeader();
route();
export { openObservation };
