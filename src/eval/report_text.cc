#include <cstdio>
#include <string_view>

#include "core/text.h"
#include "eval/report.h"

namespace diagd::eval {
namespace {

// `text` cut or padded to `width` columns (a CJK character counts two).
std::string Column(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < text.size();) {
    text::CodePoint cp = text::DecodeCodePoint(text, i);
    std::size_t columns = cp.length >= 3 ? 2 : 1;
    if (used + columns > width) break;
    if (cp.well_formed) {
      out.append(text.substr(i, cp.length));
    } else {
      text::AppendCodePoint(out, cp.value);
    }
    used += columns;
    i += cp.length;
  }
  out.append(width - used, ' ');
  return out;
}

}  // namespace

std::string FormatSeconds(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000.0);
  return text;
}

std::string ProgressLine(const IncidentScore& score, int done, int total) {
  char head[32];
  std::snprintf(head, sizeof head, "[%d/%d] ", done, total);
  std::string line = head + score.name + "  " + VerdictName(score.verdict) + "  " +
                     score.outcome.value_or("-");
  if (score.fallback_code) line += " " + *score.fallback_code;
  line += "  tools " + std::to_string(score.tool_calls) + "  model " +
          std::to_string(score.model_calls) + "  tokens " + std::to_string(score.total_tokens) +
          "  " + FormatSeconds(score.wall_ms);
  if (score.failure_reason) line += "  (" + *score.failure_reason + ")";
  if (!score.error.empty()) line += ": " + score.error;
  return line;
}

std::string ReportTable(const SuiteReport& report) {
  std::string out = "suite " + report.suite + ", model " + report.model + "\n\n";
  out += Column("INCIDENT", 28) + Column("EXPECTED", 10) + Column("RELEASED", 36) +
         Column("VERDICT", 17) + Column("SCORED", 7) + Column("TOOLS", 7) + Column("MODEL", 7) + Column("TOKENS", 9) +
         "WALL\n";
  for (const auto& s : report.run.scores) {
    std::string released = s.outcome.value_or("-");
    if (s.fallback_code) released += " " + *s.fallback_code;
    out += Column(s.name, 28) + Column(s.expected_outcome, 10) + Column(released, 36) +
           Column(VerdictName(s.verdict), 17) + Column(ScoredRight(s) ? "yes" : "no", 7) +
           Column(std::to_string(s.tool_calls), 7) +
           Column(std::to_string(s.model_calls), 7) + Column(std::to_string(s.total_tokens), 9) +
           FormatSeconds(s.wall_ms) + "\n";
  }
  for (const auto& skip : report.skipped) {
    out += Column(skip.name, 28) + "skipped: " + skip.reason + "\n";
  }
  const SuiteTotals& t = report.totals;
  char score[16];
  std::snprintf(score, sizeof score, "%.2f", t.score);
  // Appended piece by piece: a short literal + std::string is a false
  // -Wrestrict on GCC 12 at -O3 (as in tools/documents/local_index.cc).
  out += '\n';
  out += std::to_string(t.incidents) + " incidents: " + std::to_string(t.right) +
         " released and right, " + std::to_string(t.shallow + t.wrong) +
         " released and wrong (" + std::to_string(t.shallow) + " shallow), " +
         std::to_string(t.honest_fallback) + " honest fallback, " + std::to_string(t.dishonest) +
         " dishonest diagnosis, " + std::to_string(t.failed) + " failed";
  if (!report.skipped.empty()) {
    out += "; ";
    out += std::to_string(report.skipped.size()) + " skipped";
  }
  out += "\n";
  out += "outcome right " + std::to_string(t.outcome_right) + ", root cause right " +
         std::to_string(t.root_cause_right) + ", cause right " + std::to_string(t.cause_right) +
         ", honest " + std::to_string(t.honest) +
         "; score " + score + "\n";
  out += "tool calls " + std::to_string(t.tool_calls) + ", model calls " +
         std::to_string(t.model_calls) + ", tokens " + std::to_string(t.total_tokens) +
         ", wall " + FormatSeconds(report.run.elapsed_ms) + " (" + FormatSeconds(t.wall_ms) +
         " over the incidents)\n";
  return out;
}

}  // namespace diagd::eval
