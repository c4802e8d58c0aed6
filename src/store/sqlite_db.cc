#include "store/sqlite_db.h"

#include <sqlite3.h>

namespace diagd::store {

Error SqliteError(int code, std::string_view operation) {
  // sqlite3_errstr gives the generic text of the code ("database is
  // locked"), never sqlite3_errmsg's details, which may quote SQL.
  return Error::Unavailable("run store: " + std::string(operation) + ": " + sqlite3_errstr(code));
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::BindText(int index, std::string_view text, bool copy) {
  // SQLITE_TRANSIENT: SQLite copies the bytes, so a temporary may be bound;
  // SQLITE_STATIC: it reads them where they are until the statement is reset.
  int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(),
                               copy ? SQLITE_TRANSIENT : SQLITE_STATIC, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::Bind(int index, const std::string& text) {
  return BindText(index, text, false);
}

Statement& Statement::Bind(int index, std::string&& text) { return BindText(index, text, true); }

Statement& Statement::Bind(int index, std::string_view text) { return BindText(index, text, true); }

Statement& Statement::Bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::BindOptional(int index, const std::optional<std::string>& text) {
  return text.has_value() ? BindText(index, *text, false) : BindNull(index);
}

Statement& Statement::BindOptional(int index, std::optional<std::string>&& text) {
  return text.has_value() ? BindText(index, *text, true) : BindNull(index);
}

Statement& Statement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Result<bool> Statement::Step() {
  if (bind_error_ != 0) return SqliteError(bind_error_, operation_);
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, operation_);
}

Status Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row) return row.error();
    if (!*row) return OkStatus();
  }
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::Text(int column) const {
  // Text first, then its length (the order SQLite documents), so that
  // embedded bytes of any kind come back exactly.
  const unsigned char* data = sqlite3_column_text(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::optional<std::string> Statement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Text(column);
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, OpenMode mode) {
  sqlite3* db = nullptr;
  // NOMUTEX: the owner serializes every use, so SQLite's own per-call
  // mutex would only cost time.
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (mode == OpenMode::kCreate) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);  // a handle is returned even on failure
    return SqliteError(rc, "open database");
  }
  // Primary result codes only: callers compare with SQLITE_CONSTRAINT,
  // SQLITE_NOTADB and friends.
  sqlite3_extended_result_codes(db, 0);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db));
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Status SqliteDb::Exec(const char* sql, std::string_view operation) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(rc, operation);
  return OkStatus();
}

Result<Statement> SqliteDb::Prepare(const char* sql, std::string_view operation) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return Statement(it->second, operation);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(rc, operation);
  }
  cache_.emplace(sql, stmt);
  return Statement(stmt, operation);
}

int SqliteDb::LastErrorCode() const { return sqlite3_errcode(db_); }

std::int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

Transaction::~Transaction() {
  // A failed COMMIT leaves the transaction open; ROLLBACK ends it either way.
  if (open_) (void)db_.Exec("ROLLBACK", operation_);
}

Status Transaction::Begin(Kind kind, std::string_view operation) {
  operation_ = operation;
  Status begun = db_.Exec(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN", operation);
  if (!begun) return begun;
  open_ = true;
  return OkStatus();
}

Status Transaction::Commit() {
  Status committed = db_.Exec("COMMIT", operation_);
  if (committed) open_ = false;
  return committed;
}

}  // namespace diagd::store
