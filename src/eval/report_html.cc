// The --report page: one file a team can mail or archive. Inline CSS, no
// script, no external asset (the browser fetches nothing); every text from
// the suite, the model or a tool goes through Escape.
#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "eval/report.h"

namespace diagd::eval {
namespace {

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The incident's anchor: its folder name, which the suite keeps to
// [A-Za-z0-9_-] in practice; anything else becomes '_'.
std::string Anchor(std::string_view name) {
  std::string out = "incident-";
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out;
}

constexpr const char* kStyle = R"(
body{font:14px/1.5 system-ui,-apple-system,"Noto Sans CJK SC",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1b1f24;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e6e6;background:#16181c}table td,table th{border-color:#3a3f47}.quote{background:#23272e}}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
.v{font-weight:600;padding:1px 6px;border-radius:4px;color:#fff;white-space:nowrap}
.v-RIGHT{background:#1a7f37}.v-SHALLOW{background:#bc4c00}.v-WRONG{background:#cf222e}.v-DISHONEST{background:#8250df}.v-HONEST_FALLBACK{background:#9a6700}.v-FAILED{background:#57606a}
section{margin-top:2.5em;border-top:2px solid #d0d7de;padding-top:.5em}
.quote{background:#f6f8fa;border-left:3px solid #1a7f37;margin:.4em 0;padding:.3em .6em;white-space:pre-wrap;word-break:break-word}
.meta{color:#57606a}svg text{font:11px system-ui,sans-serif;fill:currentColor}
)";

void Totals(const SuiteReport& report, std::string& out) {
  const SuiteTotals& t = report.totals;
  char score[16];
  std::snprintf(score, sizeof score, "%.2f", t.score);
  out += "<p><strong>score " + std::string(score) + "</strong> over " +
         std::to_string(t.incidents) + " incidents: " + std::to_string(t.right) +
         " released and right, " + std::to_string(t.shallow + t.wrong) +
         " released and wrong (" + std::to_string(t.shallow) + " shallow), " +
         std::to_string(t.honest_fallback) + " honest fallback, " + std::to_string(t.dishonest) +
         " dishonest diagnosis, " + std::to_string(t.failed) + " failed. Tool calls " +
         std::to_string(t.tool_calls) + ", model calls " + std::to_string(t.model_calls) +
         ", tokens " + std::to_string(t.total_tokens) + ", wall " +
         FormatSeconds(report.run.elapsed_ms) + ".</p>\n";
  out += "<table><thead><tr><th>incident</th><th>expected</th><th>released</th><th>verdict</th>"
         "<th>scored right</th><th>tools</th><th>model</th><th>tokens</th><th>wall</th></tr>"
         "</thead><tbody>\n";
  for (const auto& s : report.run.scores) {
    std::string released = s.outcome.value_or("-");
    if (s.fallback_code) released += " " + *s.fallback_code;
    out += "<tr><td><a href=\"#" + Anchor(s.name) + "\">" + Escape(s.name) + "</a></td><td>" +
           s.expected_outcome + "</td><td>" + Escape(released) + "</td><td><span class=\"v v-" +
           VerdictName(s.verdict) + "\">" + VerdictName(s.verdict) + "</span></td><td>" +
           (ScoredRight(s) ? "yes" : "no") + "</td><td>" + std::to_string(s.tool_calls) + "</td><td>" + std::to_string(s.model_calls) +
           "</td><td>" + std::to_string(s.total_tokens) + "</td><td>" + FormatSeconds(s.wall_ms) +
           "</td></tr>\n";
  }
  out += "</tbody></table>\n";
  for (const auto& skip : report.skipped) {
    out += "<p class=\"meta\">skipped " + Escape(skip.name) + ": " + Escape(skip.reason) + "</p>\n";
  }
}

// The investigation as bars on a time axis: one row per call.
void Timeline(const IncidentScore& s, std::string& out) {
  if (s.timeline.empty()) return;
  // Room on the right for the last bar's duration and status.
  constexpr int kLabelWidth = 330, kBarsWidth = 520, kDetailWidth = 220, kRow = 18;
  std::int64_t end = 1;
  for (const auto& step : s.timeline) end = std::max(end, step.start_ms + step.duration_ms);
  int height = static_cast<int>(s.timeline.size()) * kRow + 22;
  out += "<h3>Investigation</h3>\n<svg role=\"img\" aria-label=\"timeline\" width=\"" +
         std::to_string(kLabelWidth + kBarsWidth + kDetailWidth) + "\" height=\"" +
         std::to_string(height) +
         "\">\n";
  int y = 4;
  for (const auto& step : s.timeline) {
    double x = kLabelWidth + static_cast<double>(step.start_ms) * kBarsWidth / end;
    double w = std::max(2.0, static_cast<double>(step.duration_ms) * kBarsWidth / end);
    bool cut = false;
    std::string label = text::TruncateCodePoints(step.label, 48, &cut);
    if (cut) label += "…";
    std::string detail = std::to_string(step.duration_ms) + " ms";
    if (step.model && step.tokens > 0) detail += ", " + std::to_string(step.tokens) + " tokens";
    if (!step.model && !step.status.empty()) detail += ", " + step.status;
    char bar[160];
    std::snprintf(bar, sizeof bar, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                  x, y, w, kRow - 5, step.model ? "#0969da" : "#1a7f37");
    out += "<text x=\"0\" y=\"" + std::to_string(y + 11) + "\">" + Escape(label) + "</text>" + bar +
           "<text x=\"" + std::to_string(static_cast<int>(x + w + 4)) + "\" y=\"" +
           std::to_string(y + 11) + "\">" + Escape(detail) + "</text>\n";
    y += kRow;
  }
  out += "<text x=\"" + std::to_string(kLabelWidth) + "\" y=\"" + std::to_string(y + 12) +
         "\">0</text><text x=\"" + std::to_string(kLabelWidth + kBarsWidth - 30) + "\" y=\"" +
         std::to_string(y + 12) + "\">" + (end < 1000 ? std::to_string(end) + " ms" : FormatSeconds(end)) +
         "</text>\n</svg>\n";
}

void Incident(const IncidentScore& s, std::string& out) {
  out += "<section id=\"" + Anchor(s.name) + "\">\n<h2>" + Escape(s.name) +
         " <span class=\"v v-" + VerdictName(s.verdict) + "\">" + VerdictName(s.verdict) +
         "</span></h2>\n";
  out += "<p><strong>Question:</strong> " + Escape(s.question) + "</p>\n";
  std::string released = s.outcome.value_or("nothing");
  if (s.fallback_code) released += " " + *s.fallback_code;
  out += "<p class=\"meta\">expected " + s.expected_outcome + ", released " + Escape(released) +
         "; tools " + std::to_string(s.tool_calls) + ", model calls " +
         std::to_string(s.model_calls) + ", tokens " + std::to_string(s.total_tokens) + ", " +
         FormatSeconds(s.wall_ms);
  if (s.stop_reason) out += "; stopped " + Escape(*s.stop_reason);
  if (!s.run_id.empty()) out += "; run " + Escape(s.run_id);
  out += "</p>\n";
  if (s.failure_reason) out += "<p><strong>Failure:</strong> " + Escape(*s.failure_reason);
  if (!s.error.empty()) {
    out += ": ";  // appended apart: see report_text.cc on -Wrestrict
    out += Escape(s.error);
  }
  if (s.failure_reason) out += "</p>\n";
  if (!s.missing_checks.empty()) {
    out += "<p><strong>Never checked:</strong>";
    for (const auto& tool : s.missing_checks) {
      out += ' ';
      out += Escape(tool);
    }
    out += "</p>\n";
  }
  if (!s.root_cause.empty()) {
    out += "<p><strong>Root cause</strong> (" + Escape(s.confidence) + "): " +
           Escape(s.root_cause) + "</p>\n";
  }
  if (s.root_cause_right) {
    out += "<p class=\"meta\">names the mechanism: ";
    out += *s.root_cause_right ? "yes" : "no";
    out += "; the cause: ";
    out += !s.cause_right ? "not checked" : *s.cause_right ? "yes" : "no";
    out += "</p>\n";
  }
  if (!s.quotes.empty()) {
    out += "<h3>Verified quotes</h3>\n";
    for (const auto& quote : s.quotes) {
      out += "<div class=\"meta\">" + Escape(quote.tool) + " · " + Escape(quote.scope) +
             "</div><div class=\"quote\">" + Escape(quote.quote) + "</div>\n";
    }
  }
  if (!s.fallback_message.empty()) {
    out += "<p><strong>Fallback:</strong> " + Escape(s.fallback_message) + "</p>\n";
    if (!s.missing_info.empty()) {
      out += "<ul>";
      for (const auto& item : s.missing_info) out += "<li>" + Escape(item) + "</li>";
      out += "</ul>\n";
    }
  }
  if (!s.answer.empty()) out += "<p><strong>Answer:</strong> " + Escape(s.answer) + "</p>\n";
  Timeline(s, out);
  out += "</section>\n";
}

}  // namespace

std::string ReportHtml(const SuiteReport& report) {
  std::string out =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\">\n<title>diagd eval: " +
      Escape(report.suite) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>diagd eval: " + Escape(report.suite) + "</h1>\n<p class=\"meta\">model " +
         Escape(report.model) + "</p>\n";
  Totals(report, out);
  for (const auto& score : report.run.scores) Incident(score, out);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace diagd::eval
