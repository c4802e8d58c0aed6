// The released result (docs/specs/release.md): a diagnosis whose every
// quote opens the observation it came from, a fallback in plain words, an
// answer with its sources. Every text is a text node.
import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { apiJson } from "./api.js";

function list(items, render = (item) => item) {
  return h("ul", {}, items.map((item) => h("li", {}, render(item))));
}

function section(title, className, ...children) {
  return h("section", { class: className }, h("h3", {}, title), ...children);
}

// A quote as a button: it opens the observation of its tool call.
function quoteButton(runId, toolCallId, quote, meta) {
  return h("button", {
    type: "button", class: "quote", "data-tool-call-id": toolCallId, title: t("open_quote"),
    onclick: () => openObservation(runId, toolCallId, quote, meta),
  }, quote);
}

function callMeta(result, toolCallId) {
  const calls = [...(result.process || []), ...((result.fallback && result.fallback.checked) || [])];
  return calls.find((call) => call.tool_call_id === toolCallId) || {};
}

function findings(result, runId, items) {
  if (!items || items.length === 0) return null;
  return section(t("findings"), "findings", list(items, (f) => {
    const meta = callMeta(result, f.tool_call_id);
    return h("span", {}, h("span", { class: `kind kind-${String(f.kind).toLowerCase()}` }, f.kind), " ",
      f.statement, f.quote ? [" ", quoteButton(runId, f.tool_call_id, f.quote, meta)] : null);
  }));
}

function process(items) {
  return h("table", { class: "checked" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("tool")), h("th", { scope: "col" }, t("scope")),
      h("th", { scope: "col" }, t("status")))),
    h("tbody", {}, items.map((call) => h("tr", {}, h("td", {}, call.tool), h("td", {}, call.scope),
      h("td", {}, h("span", { class: `status status-${String(call.evidence_status).toLowerCase()}` },
        t(call.evidence_status)))))));
}

function diagnosis(result, runId) {
  const d = result.diagnosis;
  const limits = d.limitations || {};
  return h("div", { class: "diagnosis" },
    h("h2", {}, t("diagnosis")),
    h("p", { class: "root-cause" }, h("span", { class: "label" }, `${t("root_cause")}: `),
      h("span", { class: "root-cause-text" }, d.root_cause)),
    h("p", {}, h("span", { class: "label" }, `${t("confidence")}: `),
      h("span", { class: `confidence confidence-${String(d.confidence).toLowerCase()}` }, t(d.confidence))),
    section(t("evidence"), "evidence", h("ul", {}, (d.evidence || []).map((e) => h("li", {},
      quoteButton(runId, e.tool_call_id, e.quote, e),
      h("span", { class: "meta" }, ` ${e.tool} · ${e.scope}`))))),
    findings(result, runId, d.findings),
    d.next_steps && d.next_steps.length ? section(t("next_steps"), "next-steps",
      h("ol", {}, d.next_steps.map((step) => h("li", {}, step)))) : null,
    (limits.missing_info && limits.missing_info.length) || (limits.notes && limits.notes.length)
      ? section(t("limitations"), "limitations",
        limits.missing_info && limits.missing_info.length ? [h("h4", {}, t("missing_info")), list(limits.missing_info)] : null,
        limits.notes && limits.notes.length ? [h("h4", {}, t("notes")), list(limits.notes)] : null)
      : null);
}

function fallback(result, runId, onMissing) {
  const f = result.fallback;
  return h("div", { class: "fallback" },
    h("h2", {}, t("fallback")),
    h("p", { class: "plain" }, t(`fb_${f.code}`)),
    f.message ? h("p", { class: "fallback-message" }, f.message) : null,
    f.missing_info && f.missing_info.length ? section(t("missing_info"), "missing",
      h("p", {}, t("missing_prompt")),
      h("ul", {}, f.missing_info.map((item) => h("li", {},
        h("button", { type: "button", class: "missing-item", onclick: () => onMissing && onMissing(item) }, item)))))
      : null,
    f.checked && f.checked.length ? section(t("checked"), "checked-section", process(f.checked)) : null,
    f.observed_facts && f.observed_facts.length ? section(t("observed_facts"), "observed-facts",
      list(f.observed_facts, (fact) => h("span", {}, h("span", { class: "meta" }, `${fact.tool}: `), fact.fact)))
      : null,
    findings(result, runId, f.findings),
    f.limitations && f.limitations.length ? section(t("limitations"), "limitations", list(f.limitations)) : null);
}

function answer(result) {
  const a = result.answer;
  return h("div", { class: "answer" },
    h("h2", {}, t("answer")),
    h("p", { class: "answer-text" }, a.text),
    a.citations && a.citations.length ? section(t("citations"), "citations",
      list(a.citations, (c) => h("span", {}, h("span", { class: "citation-title" }, c.title || c.document_id),
        c.source ? h("span", { class: "meta" }, ` ${c.source}`) : null))) : null);
}

export function renderResult(result, { runId, onMissing } = {}) {
  const id = runId || result.run_id;
  if (result.diagnosis) return diagnosis(result, id);
  if (result.fallback) return fallback(result, id, onMissing);
  if (result.answer) return answer(result);
  return h("p", {}, "");
}

export function renderError(error) {
  return h("div", { class: "run-error", role: "alert" },
    h("h2", {}, t("error")), h("p", {}, h("code", {}, error.code ?? ""), " ", error.message ?? ""));
}

// Puts `<mark>` around the first place `quote` occurs in `pre`'s text:
// the text node is split with DOM calls, so nothing is parsed as HTML.
function highlight(pre, text, quote) {
  let at = text.indexOf(quote);
  let length = quote.length;
  if (at < 0) {  // the quote's characters escaped as they are inside a JSON string
    const escaped = JSON.stringify(quote).slice(1, -1);
    at = text.indexOf(escaped);
    length = escaped.length;
  }
  if (at < 0) {
    pre.append(text);
    return null;
  }
  const mark = h("mark", {}, text.slice(at, at + length));
  pre.append(text.slice(0, at), mark, text.slice(at + length));
  return mark;
}

let dialog = null;

// Opens the observation the model got for `toolCallId`, with `quote`
// highlighted in place.
export async function openObservation(runId, toolCallId, quote, meta = {}) {
  if (!dialog) {
    dialog = h("dialog", { class: "observation", "aria-labelledby": "observation-title" });
    document.body.append(dialog);
  }
  clear(dialog);
  const pre = h("pre", { class: "observation-text", tabindex: "0" });
  const note = h("p", { class: "note" }, t("loading"));
  const close = h("button", { type: "button", class: "close", onclick: () => dialog.close() }, t("close"));
  dialog.append(
    h("header", {}, h("h2", { id: "observation-title" }, t("observation")),
      h("span", { class: "meta" }, [meta.tool, meta.scope, toolCallId].filter(Boolean).join(" · ")), close),
    note, pre);
  if (!dialog.open) dialog.showModal();
  try {
    const observation = await apiJson(
      `/api/v1/runs/${encodeURIComponent(runId)}/observations/${encodeURIComponent(toolCallId)}`);
    const mark = highlight(pre, JSON.stringify(observation, null, 2), quote);
    note.textContent = mark ? "" : t("quote_not_found");
    note.hidden = Boolean(mark);
    if (mark) mark.scrollIntoView({ block: "center" });
  } catch (error) {
    note.textContent = error.status === 404 ? t("observation_gone") : `${t("error")}: ${error.message}`;
  }
  close.focus();
}
