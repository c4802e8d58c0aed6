// One run's whole story for an operator (docs/run-store.md):
// status and failure, stop reason, tokens by component and the ledger's
// reconciliation, the release decision, the trace as a timeline picture
// and as a table, and the raw record.
import { h, s, clear, append } from "./dom.js";
import { t } from "./i18n.js";
import { apiJson } from "./api.js";

function field(label, value, className) {
  return [h("dt", {}, label), h("dd", { class: className || "" },
    value === null || value === undefined || value === "" ? t("none") : String(value))];
}

function tokensByComponent(trace) {
  const rows = new Map();
  for (const event of trace) {
    if (event.type !== "MODEL_CALL") continue;
    const f = event.fields || {};
    const row = rows.get(f.component) || { calls: 0, input: 0, output: 0, total: 0, unavailable: 0 };
    row.calls += 1;
    if (f.usage_available) {
      row.input += f.input_tokens || 0;
      row.output += f.output_tokens || 0;
      row.total += f.total_tokens || 0;
    } else {
      row.unavailable += 1;
    }
    rows.set(f.component, row);
  }
  return h("table", { class: "tokens" },
    h("caption", {}, t("tokens")),
    h("thead", {}, h("tr", {}, [t("component"), t("calls"), t("input_tokens"), t("output_tokens"), t("total_tokens")]
      .map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, [...rows].map(([component, row]) => h("tr", {},
      h("th", { scope: "row" }, component), h("td", {}, String(row.calls)), h("td", {}, String(row.input)),
      h("td", {}, String(row.output)), h("td", {}, String(row.total))))));
}

// Bars on a time axis: a tool call from its completion time back by its
// duration_ms; a model call from the trace event before it to its own
// MODEL_CALL event (the trace records a call when it ends).
export function timelineBars(trace) {
  const times = trace.map((event) => Date.parse(event.time));
  const origin = Math.min(...times.filter((x) => !Number.isNaN(x)));
  const bars = [];
  trace.forEach((event, i) => {
    const f = event.fields || {};
    const end = times[i] - origin;
    if (event.type === "MODEL_CALL") {
      const start = i > 0 ? times[i - 1] - origin : end;
      bars.push({ kind: "model", label: f.component, start, end,
        tokens: f.usage_available ? f.total_tokens : null });
    } else if (event.type === "TOOL_CALL_COMPLETED") {
      const duration = Number(f.duration_ms) || 0;
      bars.push({ kind: "tool", label: `${f.tool} ${f.tool_call_id}`, start: Math.max(0, end - duration), end,
        status: f.evidence_status });
    }
  });
  return bars;
}

function timeline(trace) {
  const bars = timelineBars(trace);
  const total = Math.max(1, ...bars.map((bar) => bar.end));
  const width = 720, left = 190, right = 20, rowHeight = 24, top = 10;
  const height = top + bars.length * rowHeight + 30;
  const scale = (ms) => left + (ms / total) * (width - left - right);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "timeline", role: "img",
    "aria-label": t("timeline_label") });
  svg.append(s("title", {}, t("timeline_label")));
  bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const x = scale(bar.start);
    const w = Math.max(2, scale(bar.end) - x);
    const duration = `${Math.round(bar.end - bar.start)} ms`;
    const extra = bar.kind === "model" ? (bar.tokens !== null ? `${bar.tokens} tok` : "") : (bar.status || "");
    const g = s("g", { class: `bar bar-${bar.kind}` });
    g.append(
      s("title", {}, `${bar.label}: ${duration}${extra ? `, ${extra}` : ""}`),
      s("text", { x: left - 6, y: y + 15, "text-anchor": "end", class: "bar-label" }, bar.label),
      s("rect", { x, y: y + 3, width: w, height: rowHeight - 8, rx: 3 }),
      // The value right of its bar, or left of it when the bar ends late.
      x + w + 150 < width ? s("text", { x: x + w + 4, y: y + 15, class: "bar-value" }, `${duration}${extra ? ` · ${extra}` : ""}`)
        : s("text", { x: x - 4, y: y + 15, "text-anchor": "end", class: "bar-value" }, `${duration}${extra ? ` · ${extra}` : ""}`));
    svg.append(g);
  });
  const axisY = top + bars.length * rowHeight + 8;
  svg.append(s("line", { x1: left, x2: width - right, y1: axisY, y2: axisY, class: "axis" }));
  for (let k = 0; k <= 4; k += 1) {
    const ms = (total * k) / 4;
    svg.append(s("text", { x: scale(ms), y: axisY + 16, "text-anchor": "middle", class: "tick" },
      ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`));
  }
  return svg;
}

function traceTable(trace) {
  return h("table", { class: "trace" },
    h("thead", {}, h("tr", {}, ["seq", "type", "time", "fields"].map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, trace.map((event) => h("tr", {},
      h("td", {}, String(event.seq)), h("td", {}, event.type), h("td", {}, event.time),
      h("td", {}, h("code", {}, JSON.stringify(event.fields)))))));
}

export async function renderDetails(runId, container) {
  const body = h("div", { class: "details-body" }, t("loading"));
  container.append(body);
  let record;
  try {
    record = await apiJson(`/api/v1/runs/${encodeURIComponent(runId)}`);
  } catch (error) {
    body.textContent = `${t("error")}: ${error.message}`;
    return;
  }
  clear(body);
  const trace = record.trace || [];
  const finished = (trace.find((e) => e.type === "RUN_FINISHED") || {}).fields;
  const release = (trace.find((e) => e.type === "RELEASE_DECIDED") || {}).fields;
  append(body, [
    h("dl", { class: "facts" },
      field(t("run_id"), record.run_id, "run-id"),
      field(t("conversation"), record.conversation_id),
      field(t("status"), record.status, "run-status"),
      field(t("internal_status"), record.internal_status),
      field(t("route_label"), record.route),
      field("release_outcome", record.release_outcome),
      field("fallback_code", record.fallback_code),
      field(t("stop_reason"), record.stop_reason, "stop-reason"),
      field(t("failure_reason"), record.failure_reason, "failure-reason"),
      field(t("failure_detail"), record.failure_detail),
      field(t("total_tokens"), record.total_token_count),
      field(t("created_at"), record.created_at),
      field("finished_at", record.finished_at)),
    tokensByComponent(trace),
    finished ? h("section", { class: "reconciliation" }, h("h4", {}, t("reconciliation")),
      h("p", { class: finished.tokens_reconciled ? "ok" : "warn" },
        finished.tokens_reconciled ? t("reconciled") : t("not_reconciled"),
        ` (budget ${finished.budget_total_tokens}, audited ${finished.audited_total_tokens} / ${finished.audited_calls} calls, `
        + `usage unavailable ${finished.usage_unavailable_calls})`)) : null,
    release ? h("section", { class: "release" }, h("h4", {}, t("release_decision")),
      h("dl", { class: "facts" }, Object.entries(release).map(([key, value]) => field(key, value)))) : null,
    h("section", { class: "timeline-section" }, h("h4", {}, t("timeline")), timeline(trace)),
    h("details", { class: "trace-table" }, h("summary", {}, t("trace")), traceTable(trace)),
    h("details", { class: "raw" }, h("summary", {}, t("raw_record")),
      h("pre", {}, JSON.stringify(record, null, 2)))]);
}
