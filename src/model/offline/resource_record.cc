// FindResourceRecord (case_file.h): the row of a table a runbook names
// that confirms the cause the runbook names.
#include <algorithm>

#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/schema_discovery.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// The hosts, addresses and paths the chain's errors point at, deepest
// link first: the one thing a resource row must be about.
std::vector<std::string> ChainIdentifiers(const CaseFile& file) {
  std::vector<std::string> names;
  for (auto it = file.chain.rbegin(); it != file.chain.rend(); ++it) {
    for (auto& name : Identifiers(file.hops[*it].key_message)) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

// A cell is about `name` when it holds it ("client (mTLS to
// api.unionbank.example.com)") or is the path it lies under ("/data" for
// "/data/order-api/spool").
bool CellIsAbout(const std::string& cell, const std::string& name) {
  if (cell.size() < 4) return false;
  if (ContainsFold(cell, name)) return true;
  return name.front() == '/' && cell.front() == '/' && name.size() > cell.size() &&
         name.compare(0, cell.size(), cell) == 0 && name[cell.size()] == '/';
}

bool LooksNumeric(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '%' || c == '-';
  });
}

// What tells two rows apart as things rather than as samples over time:
// their text cells other than times and measurements.
std::string Identity(const std::vector<Cell>& row) {
  std::string identity;
  for (const auto& cell : row) {
    if (cell.is_text && SortableTime(cell.text).empty() && !LooksNumeric(cell.text)) {
      identity += cell.text;
      identity += '\x1f';
    }
  }
  return identity;
}

bool IsExpiryColumn(const std::string& column) {
  std::string lower = text::AsciiLower(column);
  return lower.find("not_after") != std::string::npos || lower.find("expir") != std::string::npos ||
         lower.find("valid_until") != std::string::npos;
}

// A row that says its thing is well ("operational", "healthy", 正常), or
// that it expires only after the failure began (a certificate's not_after
// next year), shows no cause.
bool ShowsItWell(const std::vector<std::string>& columns, const std::vector<Cell>& row,
                 const std::string& failure_seen) {
  static const char* const kWell[] = {"operational", "ok",     "healthy", "normal", "active",
                                      "running",     "up",     "valid",   "正常",   "运行中",
                                      "健康",        "online", "green"};
  for (std::size_t i = 0; i < row.size(); ++i) {
    const Cell& cell = row[i];
    if (!cell.is_text) continue;
    std::string value(Trim(cell.text));
    for (const char* word : kWell) {
      if (text::AsciiLower(value) == word) return true;
    }
    bool expiry = i < columns.size() && IsExpiryColumn(columns[i]);
    std::string time = SortableTime(value);
    if (expiry && !time.empty() && !failure_seen.empty() && time > failure_seen) return true;
  }
  return false;
}

// Whether the row says why its thing fails, not only that it does: an
// expiry already passed when the failure was first seen, or a state that is
// an outage, a removal or a revocation. Samples of a measurement (used_pct
// 100) restate the symptom and say no why.
bool SaysWhy(const std::vector<std::string>& columns, const std::vector<Cell>& row,
             const std::string& failure_seen) {
  static const char* const kDown[] = {
      "expired", "revoked", "deleted",  "removed",  "degraded",       "outage", "down",
      "failed",  "failing", "disabled", "suspended", "decommissioned", "maintenance",
      "unavailable", "过期", "已过期",   "吊销",     "删除",           "已删除", "下线",
      "故障",    "维护中",  "停用",     "不可用"};
  for (std::size_t i = 0; i < row.size(); ++i) {
    const Cell& cell = row[i];
    if (!cell.is_text) continue;
    std::string value = text::AsciiLower(std::string(Trim(cell.text)));
    for (const char* word : kDown) {
      if (value == word) return true;
    }
    std::string time = SortableTime(value);
    if (i < columns.size() && IsExpiryColumn(columns[i]) && !time.empty() &&
        !failure_seen.empty() && time <= failure_seen) {
      return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// Rows to look through: a resource table read (ParseResourceQuery), or the
// events of a topic outside the chain read as rows of their `key=value`
// fields ("inventory: CN=... usage=client (mTLS to api.x.com) not_after=
// 2026-10-23 20:56:00"): an inventory kept as a log.
struct RowSource {
  std::size_t call = 0;
  std::string table;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

std::vector<RowSource> RowSources(const InvestigationState& state, const CaseFile& file) {
  std::vector<RowSource> sources;
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.outcome != Outcome::kEvidence) continue;
    std::string table;
    if (call.tool == ToolKind::kMysql && ParseResourceQuery(call.input.sql, &table)) {
      sources.push_back({c, table, call.columns, call.rows});
      continue;
    }
    bool in_chain = std::any_of(file.chain.begin(), file.chain.end(), [&](std::size_t p) {
      return file.hops[p].topic == call.input.topic;
    });
    if (call.tool != ToolKind::kLogs || in_chain || IsChangeTopic(call.input.topic)) continue;
    // One source per event shape: its field names are its columns.
    for (const auto& event : call.events) {
      std::vector<std::string> columns;
      std::vector<Cell> row;
      for (const KeyValueField& field : KeyValueFields(event.message)) {
        columns.emplace_back(field.key);
        row.push_back({std::string(field.value), true});
      }
      if (columns.size() < 2) continue;
      auto same = std::find_if(sources.begin(), sources.end(), [&](const RowSource& s) {
        return s.call == c && s.columns == columns;
      });
      if (same == sources.end()) {
        sources.push_back({c, call.input.topic, columns, {}});
        same = sources.end() - 1;
      }
      same->rows.push_back(std::move(row));
    }
  }
  return sources;
}

}  // namespace

std::optional<ResourceRecord> FindResourceRecord(const InvestigationState& state,
                                                 const CaseFile& file) {
  if (file.chain.empty()) return std::nullopt;
  std::vector<std::string> names = ChainIdentifiers(file);
  if (names.empty()) return std::nullopt;
  std::string failure_seen = FirstSeenFailure(file);
  for (const RowSource& source : RowSources(state, file)) {
    const std::size_t c = source.call;
    const std::string& table = source.table;
    // The rows about the first name (the deepest link's) that picks out one
    // thing.
    for (const auto& name : names) {
      const std::vector<Cell>* found = nullptr;
      std::size_t matching_cell = 0;
      bool ambiguous = false;
      for (const auto& row : source.rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
          if (!row[i].is_text || !CellIsAbout(row[i].text, name)) continue;
          if (found == nullptr) {
            found = &row;
            matching_cell = i;
          } else if (Identity(*found) != Identity(row)) {
            ambiguous = true;
          }
          break;
        }
      }
      // Two things fit this name (two hosts with /data): the data does not
      // say which; a more specific name of the errors may.
      if (found == nullptr || ambiguous) continue;
      if (ShowsItWell(source.columns, *found, failure_seen)) break;
      ResourceRecord record;
      record.call = c;
      record.table = table;
      record.says_why = SaysWhy(source.columns, *found, failure_seen);
      record.quotes.push_back((*found)[matching_cell].text);
      for (std::size_t i = 0; i < found->size(); ++i) {
        const Cell& cell = (*found)[i];
        if (i != matching_cell && text::CodePointCount(cell.text) >= 4) {
          record.quotes.push_back(cell.text);
        }
      }
      for (std::size_t d = 0; d < file.docs.size(); ++d) {
        const DocHit& hit = file.docs[d];
        if (ContainsName(state.calls[hit.call].docs[hit.item].excerpt, table)) {
          record.doc = static_cast<int>(d);
          break;
        }
      }
      return record;
    }
  }
  return std::nullopt;
}

}  // namespace diagd::model::offline
