// The PostgreSQL run store's reads for the web console's API
// (docs/server.md), as sqlite_run_queries.cc: the filtered, cursor-paged run list, a
// conversation's paged runs, a tool call's stored observation, and the purge of
// old observations. Every value is bound; the LIKE pattern escapes its
// metacharacters, so user text is never SQL.
#include <string>
#include <string_view>

#include "store/postgres_db.h"
#include "store/postgres_run_rows.h"
#include "store/run_rows.h"
#include "store/postgres_run_store.h"

namespace diagd::store {
namespace {

constexpr const char* kSummaryColumns =
    "SELECT run_id, conversation_id, route, status, release_outcome, fallback_code, "
    "created_at, finished_at, question FROM diagnosis_run ";

// Folds ASCII letters only, as SQLite's LIKE does: the match is the same
// whatever the database's locale.
constexpr const char* kFoldAscii =
    "translate(question, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')";

// `text`, ASCII-lowered, as a LIKE pattern that matches it literally
// anywhere (ESCAPE '\').
std::string ContainsPattern(std::string_view text) {
  std::string pattern = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  pattern += '%';
  return pattern;
}

Result<std::vector<app::RunSummary>> ReadSummaries(const PgRows& rows) {
  std::vector<app::RunSummary> runs;
  runs.reserve(static_cast<std::size_t>(rows.size()));
  for (int r = 0; r < rows.size(); ++r) {
    app::RunSummary summary;
    summary.run_id = rows.Text(r, 0);
    summary.conversation_id = rows.Text(r, 1);
    summary.route = rows.Text(r, 2);
    summary.status = rows.Text(r, 3);
    summary.release_outcome = rows.OptionalText(r, 4);
    summary.fallback_code = rows.OptionalText(r, 5);
    Result<WallTime> created_at = ReadPgTime(rows, r, 6);
    if (!created_at) return created_at.error();
    summary.created_at = *created_at;
    if (!rows.IsNull(r, 7)) {
      Result<WallTime> finished_at = ReadPgTime(rows, r, 7);
      if (!finished_at) return finished_at.error();
      summary.finished_at = *finished_at;
    }
    summary.question = rows.Text(r, 8);
    runs.push_back(std::move(summary));
  }
  return runs;
}

}  // namespace

Result<app::RunPage> PostgresRunStore::ListRunPage(const app::RunQuery& query) {
  if (query.limit < 1 || query.limit > kMaxListLimit) {
    return Error::InvalidArgument("run store: the list limit must be between 1 and " +
                                  std::to_string(kMaxListLimit));
  }
  // Only the filters that are set are in the statement: PostgreSQL plans a
  // generic `$1 IS NULL OR ...` poorly, and with them out the planner takes
  // the index of the filter that is set (or the newest-first one).
  std::string sql = kSummaryColumns;
  PgParams params;
  std::string where;
  auto add = [&](const std::string& condition) {
    where += where.empty() ? "WHERE " : " AND ";
    where += condition;
  };
  auto next = [&] {  // the placeholder of the parameter added last
    std::string placeholder(1, '$');
    placeholder += std::to_string(params.size());
    return placeholder;
  };
  if (query.before) {
    params.Text(FormatRfc3339Millis(query.before->created_at));
    std::string time = next();
    params.Text(query.before->run_id);
    add("(created_at, run_id) < (" + time + ", " + next() + ")");
  }
  if (!query.route.empty()) {
    params.Text(query.route);
    add("route = " + next());
  }
  if (!query.release_outcome.empty()) {
    params.Text(query.release_outcome);
    add("release_outcome = " + next());
  }
  if (!query.status.empty()) {
    params.Text(query.status);
    add("status = " + next());
  }
  if (!query.question_contains.empty()) {
    params.Text(ContainsPattern(query.question_contains));
    add(std::string(kFoldAscii) + " LIKE " + next() + " ESCAPE '\\'");
  }
  params.Int(static_cast<std::int64_t>(query.limit) + 1);  // one more: is there a next page?
  sql += where + " ORDER BY created_at DESC, run_id DESC LIMIT " + next();
  Result<std::vector<app::RunSummary>> runs =
      ReadWithRetry(*pool_, [&](PgConn& conn) -> Result<std::vector<app::RunSummary>> {
        auto rows = conn.Query(sql.c_str(), params, "list runs");
        if (!rows) return rows.error();
        return ReadSummaries(*rows);
      });
  if (!runs) return runs.error();
  return PageOfRuns(std::move(*runs), query.limit);
}

Result<app::RunPage> PostgresRunStore::ConversationPage(const app::ConversationQuery& query) {
  if (query.limit < 1 || query.limit > kMaxListLimit) {
    return Error::InvalidArgument("run store: the page limit must be between 1 and " +
                                  std::to_string(kMaxListLimit));
  }
  std::string sql = ConversationPageSql(true, query.after.has_value());
  PgParams params;
  params.Text(query.conversation_id)
      .Int(static_cast<std::int64_t>(query.limit) + 1)
      .Int(query.max_question_bytes);
  if (query.after) {
    params.Text(FormatRfc3339Millis(query.after->created_at)).Text(query.after->run_id);
  }
  return ReadWithRetry(*pool_, [&](PgConn& conn) -> Result<app::RunPage> {
    auto rows = conn.Query(sql.c_str(), params, "read conversation runs");
    if (!rows) return rows.error();
    Result<std::vector<app::RunSummary>> runs = ReadSummaries(*rows);
    if (!runs) return runs.error();
    std::int64_t candidates = rows->size() > 0 ? rows->Int(0, 9) : 0;
    return PageOfConversation(std::move(*runs), candidates, query.limit);
  });
}

Result<std::optional<std::string>> PostgresRunStore::GetObservation(
    const std::string& run_id, const std::string& tool_call_id) {
  return ReadWithRetry(*pool_, [&](PgConn& conn) -> Result<std::optional<std::string>> {
    auto rows = conn.Query(
        "SELECT observation FROM run_observation WHERE run_id = $1 AND tool_call_id = $2",
        PgParams().Text(run_id).Text(tool_call_id), "read observation");
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<std::string>();
    return std::optional<std::string>(rows->Text(0, 0));
  });
}

Result<std::int64_t> PostgresRunStore::PurgeObservations(WallTime before) {
  std::string cutoff = FormatRfc3339Millis(before);
  std::int64_t purged = 0;
  Status done = Write([&](PgConn& conn) -> Status {
    auto deleted = conn.Query("DELETE FROM run_observation WHERE stored_at < $1",
                              PgParams().Text(cutoff), "purge observations");
    if (!deleted) return deleted.error();
    purged = deleted->Affected();
    return OkStatus();
  });
  if (!done) return done.error();
  return purged;
}

}  // namespace diagd::store
