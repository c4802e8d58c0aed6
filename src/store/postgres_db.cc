#include "store/postgres_db.h"

#include <cstdlib>
#include <cstring>

namespace diagd::store {
namespace {

// What an SQLSTATE class means, in words that hold no SQL and no data.
std::string Condition(const std::string& sqlstate) {
  if (sqlstate == "23505") return "a row with this key exists";
  if (sqlstate == "40P01") return "deadlock with another transaction";
  if (sqlstate == "40001") return "serialization failure";
  if (sqlstate == "22021" || sqlstate == "22P05") {
    return "a text value is not valid in the database's encoding";
  }
  if (sqlstate == "57014") return "statement cancelled";
  if (sqlstate.starts_with("57P")) return "the server is shutting down or ended the session";
  if (sqlstate.starts_with("08")) return "the connection to PostgreSQL failed";
  if (sqlstate.starts_with("53")) return "the server is out of resources";
  if (sqlstate.starts_with("42")) return "the statement does not fit the schema";
  if (sqlstate.starts_with("22")) return "a value is out of range or malformed";
  if (sqlstate.starts_with("23")) return "a constraint is violated";
  if (sqlstate.starts_with("25")) return "invalid transaction state";
  if (sqlstate.starts_with("28")) return "the login was refused";
  return "the statement failed";
}

// libpq's first line: its connection messages name the host and the
// reason, never the password.
std::string FirstLine(const char* message) {
  std::string text = message != nullptr ? message : "";
  if (std::size_t end = text.find('\n'); end != std::string::npos) text.resize(end);
  return text.empty() ? "unknown error" : text;
}

}  // namespace

PgParams& PgParams::Text(std::string_view text) {
  values_.emplace_back(text);
  null_.push_back(false);
  formats_.push_back(0);
  return *this;
}

PgParams& PgParams::Bytes(std::string_view bytes) {
  values_.emplace_back(bytes);
  null_.push_back(false);
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::Int(std::int64_t value) { return Text(std::to_string(value)); }

PgParams& PgParams::Null() {
  values_.emplace_back();
  null_.push_back(true);
  formats_.push_back(0);
  return *this;
}

PgParams& PgParams::OptionalText(const std::optional<std::string>& text) {
  return text ? Text(*text) : Null();
}

std::string PgRows::Text(int row, int column) const {
  if (IsNull(row, column)) return {};
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

std::optional<std::string> PgRows::OptionalText(int row, int column) const {
  if (IsNull(row, column)) return std::nullopt;
  return Text(row, column);
}

std::int64_t PgRows::Int(int row, int column) const {
  if (IsNull(row, column)) return 0;
  return std::strtoll(PQgetvalue(result_.get(), row, column), nullptr, 10);
}

std::string PgRows::Bytes(int row, int column) const {
  if (IsNull(row, column)) return {};
  std::size_t length = 0;
  unsigned char* bytes = PQunescapeBytea(
      reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row, column)), &length);
  if (bytes == nullptr) return {};
  std::string out(reinterpret_cast<const char*>(bytes), length);
  PQfreemem(bytes);
  return out;
}

std::int64_t PgRows::Affected() const {
  const char* tuples = PQcmdTuples(result_.get());
  return tuples != nullptr && *tuples != '\0' ? std::strtoll(tuples, nullptr, 10) : 0;
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& url) {
  // Defaults first: the URL's own parameters override them.
  const char* keywords[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
                            nullptr};
  const char* values[] = {"10", "diagd", "UTF8", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Error::Unavailable("run store: out of memory connecting");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = FirstLine(PQerrorMessage(conn));
    PQfinish(conn);
    return Error::Unavailable("run store: cannot connect to PostgreSQL: " + message);
  }
  std::unique_ptr<PgConn> pg(new PgConn(conn));
  // Times are text in the schema; nothing depends on the session's zone,
  // but statements must never wait forever for a lock another instance
  // holds.
  if (Status set = pg->Exec("SET lock_timeout = '30s'", "configure session"); !set) {
    return set.error();
  }
  return pg;
}

PgConn::~PgConn() { PQfinish(conn_); }

Error PgConn::Failure(const PGresult* result, const char* what) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state != nullptr ? state : "";
  std::string prefix = std::string("run store: ") + what + ": ";
  if (Broken() || last_sqlstate_.empty()) {
    return Error::Unavailable(prefix + "the connection to PostgreSQL was lost");
  }
  std::string message = prefix + Condition(last_sqlstate_) + " (SQLSTATE " + last_sqlstate_ + ")";
  // Class 22: a value the server cannot take (text that is not UTF-8, a NUL
  // byte); retrying will not help. Anything else is the server's condition.
  if (last_sqlstate_.starts_with("22")) return Error::InvalidArgument(std::move(message));
  return Error::Unavailable(std::move(message));
}

Result<PgRows> PgConn::Query(const char* sql, const PgParams& params, const char* what) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.values_.size());
  for (std::size_t i = 0; i < params.values_.size(); ++i) {
    values.push_back(params.null_[i] ? nullptr : params.values_[i].data());
    lengths.push_back(static_cast<int>(params.values_[i].size()));
  }
  PGresult* result = PQexecParams(conn_, sql, params.size(), nullptr, values.data(),
                                  lengths.data(), params.formats_.data(), /*resultFormat=*/0);
  ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Error error = Failure(result, what);
    PQclear(result);
    return error;
  }
  last_sqlstate_.clear();
  return PgRows(result);
}

Status PgConn::Exec(const char* sql, const char* what) {
  PGresult* result = PQexec(conn_, sql);
  ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Error error = Failure(result, what);
    PQclear(result);
    return error;
  }
  PQclear(result);
  last_sqlstate_.clear();
  return OkStatus();
}

PgTransaction::~PgTransaction() {
  if (open_ && !conn_.Broken()) (void)conn_.Exec("ROLLBACK", what_);
}

Status PgTransaction::Begin(const char* begin, const char* what) {
  what_ = what;
  if (Status begun = conn_.Exec(begin, what); !begun) return begun;
  open_ = true;
  return OkStatus();
}

Status PgTransaction::Commit() {
  open_ = false;
  return conn_.Exec("COMMIT", what_);
}

PgPool::~PgPool() = default;

PgPool::Lease::~Lease() {
  if (conn_) pool_->Release(std::move(conn_));
}

Result<PgPool::Lease> PgPool::Acquire() {
  std::unique_lock lock(mu_);
  while (idle_.empty() && open_ >= size_) cv_.Wait(lock);
  if (!idle_.empty()) {
    std::unique_ptr<PgConn> conn = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(conn));
  }
  ++open_;  // a slot for the connection being opened, outside the lock
  lock.unlock();
  Result<std::unique_ptr<PgConn>> conn = PgConn::Connect(url_);
  if (!conn) {
    lock.lock();
    --open_;
    cv_.NotifyAll();
    return conn.error();
  }
  return Lease(*this, std::move(*conn));
}

void PgPool::Adopt(std::unique_ptr<PgConn> conn) {
  {
    std::lock_guard lock(mu_);
    ++open_;
  }
  Release(std::move(conn));
}

void PgPool::Release(std::unique_ptr<PgConn> conn) {
  std::lock_guard lock(mu_);
  if (conn->Broken()) {
    --open_;
  } else {
    idle_.push_back(std::move(conn));
  }
  cv_.NotifyAll();
}

}  // namespace diagd::store
