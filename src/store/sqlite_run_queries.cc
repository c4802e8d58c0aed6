// The SQLite run store's reads for the web console's API
// (docs/server.md): the filtered, cursor-paged run list, a conversation's paged runs, a tool
// call's stored observation, and the purge of old observations. Every value
// is bound; the LIKE pattern escapes its metacharacters, so user text is
// never SQL.
#include <string>
#include <string_view>

#include "store/run_rows.h"
#include "store/sqlite_db.h"
#include "store/sqlite_run_store.h"

namespace diagd::store {
namespace {

constexpr const char* kSummaryColumns =
    "SELECT run_id, conversation_id, route, status, release_outcome, fallback_code, "
    "created_at, finished_at, coalesce(question, '') FROM diagnosis_run ";

// Built once: a connection caches its prepared statements by the SQL text's
// address, so a statement built per call would be prepared (and kept) anew
// each time, and a later one could even land at a freed one's address.
// An empty filter is an unbound test that is always true, so the one list
// statement serves every combination (and the planner still takes the
// index of the filter that is set).
const std::string kListSql = std::string(kSummaryColumns) +
                             "WHERE (?1 IS NULL OR (created_at, run_id) < (?1, ?2)) "
                             "AND (?3 IS NULL OR route = ?3) "
                             "AND (?4 IS NULL OR release_outcome = ?4) "
                             "AND (?5 IS NULL OR status = ?5) "
                             "AND (?6 IS NULL OR question LIKE ?6 ESCAPE '\\') "
                             "ORDER BY created_at DESC, run_id DESC LIMIT ?7";
const std::string kConversationFirstPageSql = ConversationPageSql(false, false);
const std::string kConversationNextPageSql = ConversationPageSql(false, true);

// `text` as a LIKE pattern that matches it literally anywhere (ESCAPE '\').
std::string ContainsPattern(std::string_view text) {
  std::string pattern = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  pattern += '%';
  return pattern;
}

Result<app::RunSummary> ReadSummary(const Statement& row) {
  app::RunSummary summary;
  summary.run_id = row.Text(0);
  summary.conversation_id = row.Text(1);
  summary.route = row.Text(2);
  summary.status = row.Text(3);
  summary.release_outcome = row.OptionalText(4);
  summary.fallback_code = row.OptionalText(5);
  Result<WallTime> created_at = ReadTime(row, 6);
  if (!created_at) return created_at.error();
  summary.created_at = *created_at;
  if (!row.IsNull(7)) {
    Result<WallTime> finished_at = ReadTime(row, 7);
    if (!finished_at) return finished_at.error();
    summary.finished_at = *finished_at;
  }
  summary.question = row.Text(8);
  return summary;
}

// Appends the statement's rows to `runs`.
Status ReadSummaries(Statement& stmt, std::vector<app::RunSummary>& runs) {
  while (true) {
    Result<bool> row = stmt.Step();
    if (!row) return row.error();
    if (!*row) return OkStatus();
    Result<app::RunSummary> summary = ReadSummary(stmt);
    if (!summary) return summary.error();
    runs.push_back(std::move(*summary));
  }
}

}  // namespace

Result<app::RunPage> SqliteRunStore::ListRunPage(const app::RunQuery& query) {
  if (query.limit < 1 || query.limit > kMaxListLimit) {
    return Error::InvalidArgument("run store: the list limit must be between 1 and " +
                                  std::to_string(kMaxListLimit));
  }
  auto optional = [](const std::string& value) -> std::optional<std::string> {
    if (value.empty()) return std::nullopt;
    return value;
  };
  std::optional<std::string> before_time;
  std::optional<std::string> before_id;
  if (query.before) {
    before_time = FormatRfc3339Millis(query.before->created_at);
    before_id = query.before->run_id;
  }
  std::optional<std::string> pattern;
  if (!query.question_contains.empty()) pattern = ContainsPattern(query.question_contains);
  std::vector<app::RunSummary> runs;
  Status read = Read([&](SqliteDb& db) -> Status {
    auto stmt = db.Prepare(kListSql.c_str(), "list runs");
    if (!stmt) return stmt.error();
    stmt->BindOptional(1, before_time)
        .BindOptional(2, before_id)
        .BindOptional(3, optional(query.route))
        .BindOptional(4, optional(query.release_outcome))
        .BindOptional(5, optional(query.status))
        .BindOptional(6, pattern)
        .Bind(7, static_cast<std::int64_t>(query.limit) + 1);  // one more: a next page?
    return ReadSummaries(*stmt, runs);
  });
  if (!read) return read.error();
  return PageOfRuns(std::move(runs), query.limit);
}

Result<app::RunPage> SqliteRunStore::ConversationPage(const app::ConversationQuery& query) {
  if (query.limit < 1 || query.limit > kMaxListLimit) {
    return Error::InvalidArgument("run store: the page limit must be between 1 and " +
                                  std::to_string(kMaxListLimit));
  }
  const std::string& sql = query.after ? kConversationNextPageSql : kConversationFirstPageSql;
  std::vector<app::RunSummary> runs;
  std::int64_t candidates = 0;
  Status read = Read([&](SqliteDb& db) -> Status {
    auto stmt = db.Prepare(sql.c_str(), "read conversation runs");
    if (!stmt) return stmt.error();
    stmt->Bind(1, query.conversation_id)
        .Bind(2, static_cast<std::int64_t>(query.limit) + 1)
        .Bind(3, query.max_question_bytes);
    if (query.after) {
      stmt->Bind(4, FormatRfc3339Millis(query.after->created_at)).Bind(5, query.after->run_id);
    }
    while (true) {
      Result<bool> row = stmt->Step();
      if (!row) return row.error();
      if (!*row) return OkStatus();
      Result<app::RunSummary> summary = ReadSummary(*stmt);
      if (!summary) return summary.error();
      runs.push_back(std::move(*summary));
      candidates = stmt->Int(9);
    }
  });
  if (!read) return read.error();
  return PageOfConversation(std::move(runs), candidates, query.limit);
}

Result<std::optional<std::string>> SqliteRunStore::GetObservation(
    const std::string& run_id, const std::string& tool_call_id) {
  std::optional<std::string> observation;
  Status read = Read([&](SqliteDb& db) -> Status {
    auto stmt = db.Prepare(
        "SELECT observation FROM run_observation WHERE run_id = ?1 AND tool_call_id = ?2",
        "read observation");
    if (!stmt) return stmt.error();
    stmt->Bind(1, run_id).Bind(2, tool_call_id);
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (*row) observation = stmt->Text(0);
    return OkStatus();
  });
  if (!read) return read.error();
  return observation;
}

Result<std::int64_t> SqliteRunStore::PurgeObservations(WallTime before) {
  std::string cutoff = FormatRfc3339Millis(before);
  std::int64_t purged = 0;
  Result<bool> any = AnyRow("SELECT 1 FROM run_observation WHERE stored_at < ?1 LIMIT 1",
                            "purge observations", [&](Statement& stmt) { stmt.Bind(1, cutoff); });
  if (!any) return any.error();
  if (!*any) return purged;
  Status done = Write([&](SqliteDb& db) -> Status {
    auto purge = db.Prepare("DELETE FROM run_observation WHERE stored_at < ?1",
                            "purge observations");
    if (!purge) return purge.error();
    if (Status ran = purge->Bind(1, cutoff).Run(); !ran) return ran;
    purged = db.Changes();
    return OkStatus();
  });
  if (!done) return done.error();
  return purged;
}

}  // namespace diagd::store
