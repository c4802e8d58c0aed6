#include "model/offline/causal_guard.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <set>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/schema_discovery.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

// The table a statement reads: the word after its first FROM.
std::string TableOf(std::string_view sql) {
  std::string folded = text::AsciiLower(sql);
  auto from = folded.find(" from ");
  if (from == std::string::npos) return {};
  std::size_t start = from + 6, end = start;
  while (end < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[end])) || sql[end] == '_'))
    ++end;
  return std::string(sql.substr(start, end - start));
}

struct CitedChange {
  std::string time, text;
};

// The change row a quote was taken from, when the observation reads a
// change table (deployments, changes, config_changes...).
std::optional<CitedChange> ChangeRowOf(const bj::object& observation, const std::string& quote) {
  std::string table = TableOf(json::GetString(observation, "sql").value_or(""));
  if (table.empty()) return std::nullopt;
  const auto* columns = observation.if_contains("columns");
  const auto* rows = observation.if_contains("rows");
  if (columns == nullptr || !columns->is_array() || rows == nullptr || !rows->is_array())
    return std::nullopt;
  TableInfo info{table, {}};
  for (const auto& column : columns->as_array()) {
    info.columns.push_back(column.is_string() ? std::string(column.as_string()) : std::string());
  }
  if (!IsChangeTable(info)) return std::nullopt;
  std::string time_column = TimeColumnOf(info);
  auto time_at = std::find(info.columns.begin(), info.columns.end(), time_column);
  for (const auto& row : rows->as_array()) {
    if (!row.is_array()) continue;
    const auto& cells = row.as_array();
    CitedChange change;
    bool holds = false;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (!cells[i].is_string()) continue;
      std::string cell(cells[i].as_string());
      holds |= cell.find(quote) != std::string::npos;
      change.text += cell + "\n";
      if (time_at != info.columns.end() &&
          i == static_cast<std::size_t>(time_at - info.columns.begin())) {
        change.time = SortableTime(cell);
      }
    }
    if (holds) return change;
  }
  return std::nullopt;
}

// The oldest time of an event whose message holds `quote`: the failure
// was being logged then.
std::string OldestEventHolding(const bj::object& observation, const std::string& quote) {
  std::string oldest;
  const auto* events = observation.if_contains("events");
  if (events == nullptr || !events->is_array()) return oldest;
  for (const auto& event : events->as_array()) {
    if (!event.is_object()) continue;
    const auto& e = event.as_object();
    if (json::GetString(e, "message").value_or("").find(quote) == std::string_view::npos) continue;
    std::string time = SortableTime(json::GetString(e, "timestamp").value_or(""));
    if (!time.empty() && (oldest.empty() || time < oldest)) oldest = time;
  }
  return oldest;
}

}  // namespace

std::optional<std::string> CausalObjection(const bj::array& evidence) {
  std::set<std::string> calls;
  std::vector<CitedChange> changes;
  std::string first_failure;
  for (const auto& item : evidence) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    calls.insert(std::string(json::GetString(o, "tool_call_id").value_or("")));
    std::string quote(json::GetString(o, "quote").value_or(""));
    const auto* observation = o.if_contains("observation");
    if (observation == nullptr || !observation->is_object() || quote.empty()) continue;
    if (auto change = ChangeRowOf(observation->as_object(), quote)) changes.push_back(*change);
    std::string seen = OldestEventHolding(observation->as_object(), quote);
    if (!seen.empty() && (first_failure.empty() || seen < first_failure)) first_failure = seen;
  }
  if (calls.size() < 2) {
    return "all evidence comes from one tool call: a failure, with nothing that explains it";
  }
  for (const auto& change : changes) {
    if (DeclaresItselfHarmless(change.text)) {
      return "a cited change says it touches nothing that runs (logging or text only)";
    }
    if (!change.time.empty() && !first_failure.empty() && change.time > first_failure) {
      return "a cited change (" + change.time + ") was made after the cited failure was already "
             "logged (" + first_failure + "): a reaction to it, not its cause";
    }
  }
  return std::nullopt;
}

}  // namespace diagd::model::offline
