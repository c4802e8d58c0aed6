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

Result<std::vector<app::RunSummary>> ReadSummaries(Statement& stmt) {
  std::vector<app::RunSummary> runs;
  while (true) {
    Result<bool> row = stmt.Step();
    if (!row) return row.error();
    if (!*row) return runs;
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
  // An empty filter is an unbound test that is always true, so the one
  // statement serves every combination (and the planner still takes the
  // index of the filter that is set).
  // Static: the statement cache is keyed by the text's address
  // (SqliteDb::Prepare), so a text built per call would be a new statement
  // each time, kept for good.
  static const std::string sql =
      std::string(kSummaryColumns) +
      "WHERE (?1 IS NULL OR (created_at, run_id) < (?1, ?2)) "
      "AND (?3 IS NULL OR route = ?3) "
      "AND (?4 IS NULL OR release_outcome = ?4) "
      "AND (?5 IS NULL OR status = ?5) "
      "AND (?6 IS NULL OR question LIKE ?6 ESCAPE '\\') "
      "ORDER BY created_at DESC, run_id DESC LIMIT ?7";
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
  MutexLock lock(mu_);
  auto stmt = db_->Prepare(sql.c_str(), "list runs");
  if (!stmt) return stmt.error();
  stmt->BindOptional(1, before_time)
      .BindOptional(2, before_id)
      .BindOptional(3, optional(query.route))
      .BindOptional(4, optional(query.release_outcome))
      .BindOptional(5, optional(query.status))
      .BindOptional(6, pattern)
      .Bind(7, static_cast<std::int64_t>(query.limit) + 1);  // one more: is there a next page?
  Result<std::vector<app::RunSummary>> runs = ReadSummaries(*stmt);
  if (!runs) return runs.error();
  return PageOfRuns(std::move(*runs), query.limit);
}

Result<app::RunPage> SqliteRunStore::ConversationPage(const app::ConversationQuery& query) {
  if (query.limit < 1 || query.limit > kMaxListLimit) {
    return Error::InvalidArgument("run store: the page limit must be between 1 and " +
                                  std::to_string(kMaxListLimit));
  }
  // One static text each: the statement cache is keyed by the address.
  static const std::string first_page = ConversationPageSql(false, false);
  static const std::string next_page = ConversationPageSql(false, true);
  const std::string& sql = query.after ? next_page : first_page;
  MutexLock lock(mu_);
  auto stmt = db_->Prepare(sql.c_str(), "read conversation runs");
  if (!stmt) return stmt.error();
  stmt->Bind(1, query.conversation_id)
      .Bind(2, static_cast<std::int64_t>(query.limit) + 1)
      .Bind(3, query.max_question_bytes);
  if (query.after) {
    stmt->Bind(4, FormatRfc3339Millis(query.after->created_at)).Bind(5, query.after->run_id);
  }
  std::vector<app::RunSummary> runs;
  std::int64_t candidates = 0;
  while (true) {
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (!*row) break;
    Result<app::RunSummary> summary = ReadSummary(*stmt);
    if (!summary) return summary.error();
    runs.push_back(std::move(*summary));
    candidates = stmt->Int(9);
  }
  return PageOfConversation(std::move(runs), candidates, query.limit);
}

Result<std::optional<std::string>> SqliteRunStore::GetObservation(
    const std::string& run_id, const std::string& tool_call_id) {
  MutexLock lock(mu_);
  auto stmt = db_->Prepare(
      "SELECT observation FROM run_observation WHERE run_id = ?1 AND tool_call_id = ?2",
      "read observation");
  if (!stmt) return stmt.error();
  stmt->Bind(1, run_id).Bind(2, tool_call_id);
  Result<bool> row = stmt->Step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(stmt->Text(0));
}

Result<std::int64_t> SqliteRunStore::PurgeObservations(WallTime before) {
  std::string cutoff = FormatRfc3339Millis(before);
  std::int64_t purged = 0;
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
