// The runs list (GET /api/v1/runs): filters by outcome, route and status,
// search in questions, and pages with the `before` cursor. The filters live
// in the hash (#/history?outcome=FALLBACK&q=...) so a reload keeps them;
// `limit` there sets the page size (default 20).
import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { apiJson } from "./api.js";

function choice(id, label, values, current) {
  const select = h("select", { id, name: id.replace("filter-", "") },
    h("option", { value: "" }, t("any")), values.map((v) => h("option", { value: v }, v)));
  select.value = current || "";
  return [h("label", { for: id }, label), select];
}

export function historyView(view, params) {
  clear(view);
  const q = h("input", { type: "search", id: "filter-q", name: "q", value: params.get("q") || "" });
  const form = h("form", { class: "filters", role: "search" },
    choice("filter-outcome", t("filter_outcome"), ["DIAGNOSIS", "FALLBACK", "ANSWER"], params.get("outcome")),
    choice("filter-route", t("filter_route"), ["diagnosis", "knowledge", "chat"], params.get("route")),
    choice("filter-status", t("filter_status"), ["RUNNING", "SUCCEEDED", "FAILED"], params.get("status")),
    h("label", { for: "filter-q" }, t("search")), q,
    h("button", { type: "submit", class: "primary" }, t("apply")));
  const rows = h("tbody");
  const table = h("table", { class: "runs" },
    h("caption", {}, t("history")),
    h("thead", {}, h("tr", {}, [t("created_at"), t("question"), t("route_label"), t("status"), t("filter_outcome")]
      .map((label) => h("th", { scope: "col" }, label)))),
    rows);
  const empty = h("p", { class: "empty", hidden: true }, t("no_runs"));
  const more = h("button", { type: "button", id: "more", hidden: true }, t("more"));
  view.append(h("h1", {}, t("history")), form, table, empty, more);

  let next = null;
  const load = async (reset) => {
    const query = new URLSearchParams();
    for (const name of ["outcome", "route", "status", "q"]) {
      const value = form.elements[name].value.trim();
      if (value) query.set(name, value);
    }
    if (params.get("limit")) query.set("limit", params.get("limit"));  // a page size from the address
    if (reset) history.replaceState(null, "", `#/history${query.toString() ? `?${query}` : ""}`);
    if (!query.has("limit")) query.set("limit", "20");
    if (!reset && next) query.set("before", next);
    if (reset) clear(rows);
    let page;
    try {
      page = await apiJson(`/api/v1/runs?${query}`);
    } catch (error) {
      empty.hidden = false;
      empty.textContent = `${t("error")}: ${error.message}`;
      return;
    }
    for (const run of page.runs) {
      rows.append(h("tr", { class: "run-row", "data-run-id": run.run_id },
        h("td", {}, run.created_at),
        h("td", {}, h("a", { href: `#/runs/${encodeURIComponent(run.run_id)}` }, run.question || run.run_id)),
        h("td", {}, run.route ?? ""), h("td", {}, run.status ?? ""),
        h("td", {}, [run.release_outcome, run.fallback_code].filter(Boolean).join(" · "))));
    }
    next = page.next;
    more.hidden = !next;
    empty.hidden = rows.children.length > 0;
    empty.textContent = t("no_runs");
  };
  form.addEventListener("submit", (event) => { event.preventDefault(); next = null; load(true); });
  more.addEventListener("click", () => load(false));
  load(false);
}
