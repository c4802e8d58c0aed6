#include "tools/mysql/mariadb_statement.h"

#include <mysql.h>
#include <mysqld_error.h>

#include <algorithm>
#include <charconv>
#include <memory>

#include "core/overloaded.h"
#include "core/text.h"
#include "tools/mysql/row_collector.h"
#include "tools/mysql/server_message.h"
#include "tools/mysql/sql_lexer.h"

namespace diagd::tools::mysql {
namespace {

using Failure = Unexpected<AdapterFailure>;

constexpr unsigned int kBinaryCharset = 63;
// MySQL 8's own statement timeout and idle disconnect (not in libmariadb's
// error list).
constexpr unsigned int kMysqlQueryTimeout = 3024;
constexpr unsigned int kMysqlClientIdleTimeout = 4031;

// How a result column is fetched and turned into a cell.
enum class CellKind { kSigned, kUnsigned, kDouble, kFloat, kDecimal, kBit, kBinary, kText };

CellKind KindOf(const MYSQL_FIELD& field) {
  switch (field.type) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_YEAR:
      return (field.flags & UNSIGNED_FLAG) != 0 ? CellKind::kUnsigned : CellKind::kSigned;
    case MYSQL_TYPE_DOUBLE:
      return CellKind::kDouble;
    // Fetched as the server's text: a FLOAT widened to double would show
    // 0.1 as 0.10000000149011612.
    case MYSQL_TYPE_FLOAT:
      return CellKind::kFloat;
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
      return CellKind::kDecimal;
    case MYSQL_TYPE_BIT:
      return CellKind::kBit;
    case MYSQL_TYPE_GEOMETRY:
      return CellKind::kBinary;
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_STRING:
    case MYSQL_TYPE_VARCHAR:
      // BINARY, VARBINARY and BLOB carry the binary "charset"; TEXT does not.
      return field.charsetnr == kBinaryCharset ? CellKind::kBinary : CellKind::kText;
    default:
      // Dates and times (as the server's text), JSON, ENUM, SET, NULL.
      return CellKind::kText;
  }
}

// One result column's fetch buffers. MYSQL_BIND points into it, so a
// column never moves once bound.
struct ResultColumn {
  CellKind kind = CellKind::kText;
  std::vector<char> buffer;
  unsigned long length = 0;
  my_bool is_null = 0;
  my_bool error = 0;
  long long integer = 0;
  double real = 0;
};

// The parameters' values as the client library reads them.
struct ParamValue {
  long long integer = 0;
  double real = 0;
  signed char flag = 0;
};

void BindParam(const SqlValue& value, ParamValue& storage, MYSQL_BIND& bind) {
  std::visit(Overloaded{[&](std::monostate) { bind.buffer_type = MYSQL_TYPE_NULL; },
                        [&](bool b) {
                          storage.flag = b ? 1 : 0;
                          bind.buffer_type = MYSQL_TYPE_TINY;
                          bind.buffer = &storage.flag;
                        },
                        [&](std::int64_t i) {
                          storage.integer = i;
                          bind.buffer_type = MYSQL_TYPE_LONGLONG;
                          bind.buffer = &storage.integer;
                        },
                        [&](double d) {
                          storage.real = d;
                          bind.buffer_type = MYSQL_TYPE_DOUBLE;
                          bind.buffer = &storage.real;
                        },
                        [&](const std::string& s) {
                          bind.buffer_type = MYSQL_TYPE_STRING;
                          bind.buffer = const_cast<char*>(s.data());
                          bind.buffer_length = s.size();
                        }},
             value);
}

void BindColumn(const MYSQL_FIELD& field, std::size_t text_bytes, ResultColumn& column,
                MYSQL_BIND& bind) {
  column.kind = KindOf(field);
  bind.length = &column.length;
  bind.is_null = &column.is_null;
  bind.error = &column.error;
  switch (column.kind) {
    case CellKind::kSigned:
    case CellKind::kUnsigned:
      bind.buffer_type = MYSQL_TYPE_LONGLONG;
      bind.buffer = &column.integer;
      bind.is_unsigned = column.kind == CellKind::kUnsigned;
      return;
    case CellKind::kDouble:
      bind.buffer_type = MYSQL_TYPE_DOUBLE;
      bind.buffer = &column.real;
      return;
    case CellKind::kBinary:
      // Only the length is wanted: the library reports the full length of a
      // value it could not copy.
      column.buffer.resize(1);
      break;
    case CellKind::kFloat:
    case CellKind::kDecimal:
    case CellKind::kBit:
    case CellKind::kText:
      column.buffer.resize(text_bytes);
      break;
  }
  bind.buffer_type = MYSQL_TYPE_STRING;
  bind.buffer = column.buffer.data();
  bind.buffer_length = column.kind == CellKind::kBinary ? 0 : column.buffer.size();
}

SqlValue Cell(const ResultColumn& column, RowCollector& rows) {
  if (column.is_null) return std::monostate{};
  std::size_t kept = std::min<std::size_t>(column.length, column.buffer.size());
  std::string_view text(column.buffer.data(), kept);
  switch (column.kind) {
    case CellKind::kSigned:
      return static_cast<std::int64_t>(column.integer);
    case CellKind::kUnsigned:
      return UnsignedCell(static_cast<std::uint64_t>(column.integer));
    case CellKind::kDouble:
      return DoubleCell(column.real);
    case CellKind::kFloat: {
      double value = 0;
      auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
      if (parsed.ec == std::errc() && parsed.ptr == text.data() + text.size()) {
        return DoubleCell(value);
      }
      return rows.Text(std::string(text));
    }
    case CellKind::kDecimal:
      return DecimalCell(text);
    case CellKind::kBit:
      return BitCell(text);
    case CellKind::kBinary:
      return BinaryCell(column.length);
    case CellKind::kText:
      break;
  }
  return rows.Text(std::string(text), column.length > column.buffer.size());
}

struct CloseStatement {
  void operator()(MYSQL_STMT* stmt) const { mysql_stmt_close(stmt); }
};
struct FreeResult {
  void operator()(MYSQL_RES* result) const { mysql_free_result(result); }
};

AdapterFailure StatementFailure(MYSQL* mysql, MYSQL_STMT* stmt, MonoTime deadline,
                                bool* connection_ok) {
  unsigned int code = mysql_stmt_errno(stmt);
  const char* message = mysql_stmt_error(stmt);
  // An error packet that arrives while rows are streamed is recorded on the
  // connection, not on the statement.
  if (code == 0) {
    code = mysql_errno(mysql);
    message = mysql_error(mysql);
  }
  if (code == 0 || IsClientError(code)) *connection_ok = false;
  return MariadbFailure(code, message, deadline);
}

// SHOW is read-only by definition, and some SHOW statements (SHOW
// PROCESSLIST) report their columns only once executed.
bool IsShow(std::string_view sql) {
  for (const sql::Token& token : sql::Lex(sql, sql::LexOptions::MySql()).tokens) {
    if (!sql::IsCode(token)) continue;
    return token.kind == sql::TokenKind::kWord && text::AsciiUpper(token.text) == "SHOW";
  }
  return false;
}

}  // namespace

bool IsClientError(unsigned int code) { return code >= 2000 && code < 3000; }

AdapterFailure MariadbFailure(unsigned int code, const char* message, MonoTime deadline) {
  bool expired = std::chrono::steady_clock::now() >= deadline;
  switch (code) {
    case ER_STATEMENT_TIMEOUT:
    case kMysqlQueryTimeout:
    case ER_QUERY_INTERRUPTED:
    case ER_LOCK_WAIT_TIMEOUT:
      return {ToolErrorCode::kToolTimeout, {}};
    case ER_CON_COUNT_ERROR:
    case ER_OUT_OF_RESOURCES:
    case ER_SERVER_SHUTDOWN:
    case ER_TOO_MANY_USER_CONNECTIONS:
    case ER_LOCK_DEADLOCK:
    case ER_CONNECTION_KILLED:
    case kMysqlClientIdleTimeout:
      return {expired ? ToolErrorCode::kToolTimeout : ToolErrorCode::kToolUnavailable, {}};
    default:
      break;
  }
  // ER_ABORTING_CONNECTION .. ER_NET_WRITE_INTERRUPTED: the network broke.
  if (IsClientError(code) || (code >= ER_ABORTING_CONNECTION && code <= ER_NET_WRITE_INTERRUPTED)) {
    return {expired ? ToolErrorCode::kToolTimeout : ToolErrorCode::kToolUnavailable, {}};
  }
  return {ToolErrorCode::kQueryFailed, SafeServerMessage(message != nullptr ? message : "")};
}

namespace {

constexpr std::string_view kNoRowsMessage = "only statements that return rows are allowed";

// The executed statement's rows, read one by one within `limits`.
Result<QueryOutput, AdapterFailure> FetchRows(st_mysql* mysql, MYSQL_STMT* stmt,
                                              const QueryLimits& limits, MonoTime deadline,
                                              bool* connection_ok) {
  // The metadata after EXECUTE: `SELECT ?` has its type only once bound.
  std::unique_ptr<MYSQL_RES, FreeResult> metadata(mysql_stmt_result_metadata(stmt));
  if (metadata == nullptr) {
    return Failure({ToolErrorCode::kQueryFailed, std::string(kNoRowsMessage)});
  }
  unsigned int field_count = mysql_num_fields(metadata.get());
  MYSQL_FIELD* fields = mysql_fetch_fields(metadata.get());

  RowCollector rows(limits);
  std::vector<std::string> names;
  std::vector<ResultColumn> columns(field_count);
  std::vector<MYSQL_BIND> column_binds(field_count);
  for (unsigned int i = 0; i < field_count; ++i) {
    names.emplace_back(fields[i].name != nullptr ? fields[i].name : "");
    BindColumn(fields[i], rows.CellFetchBytes(), columns[i], column_binds[i]);
  }
  rows.SetColumns(std::move(names));
  if (mysql_stmt_bind_result(stmt, column_binds.data()) != 0) {
    return Failure(StatementFailure(mysql, stmt, deadline, connection_ok));
  }
  // Unbuffered: rows come one by one and the server stops at
  // sql_select_limit, so a huge table is never held in memory.
  for (;;) {
    int fetched = mysql_stmt_fetch(stmt);
    if (fetched == MYSQL_NO_DATA) break;
    if (fetched != 0 && fetched != MYSQL_DATA_TRUNCATED) {
      return Failure(StatementFailure(mysql, stmt, deadline, connection_ok));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      mariadb_cancel(mysql);  // no time to read what is still coming
      *connection_ok = false;
      return Failure({ToolErrorCode::kToolTimeout, {}});
    }
    std::vector<SqlValue> row;
    row.reserve(field_count);
    for (const ResultColumn& column : columns) row.push_back(Cell(column, rows));
    if (!rows.Add(std::move(row))) {
      // Past max_rows the server has sent nothing more (sql_select_limit);
      // past the byte bound up to max_rows rows, maybe large ones, are still
      // on their way: drop the connection rather than read them.
      if (rows.row_count() < limits.max_rows) {
        mariadb_cancel(mysql);
        *connection_ok = false;
      }
      break;
    }
  }
  return std::move(rows).Finish();
}

}  // namespace

Result<QueryOutput, AdapterFailure> RunStatement(st_mysql* mysql, std::string_view sql,
                                                 const std::vector<SqlValue>& params,
                                                 const QueryLimits& limits, MonoTime deadline,
                                                 bool* connection_ok) {
  std::unique_ptr<MYSQL_STMT, CloseStatement> stmt(mysql_stmt_init(mysql));
  if (stmt == nullptr) {
    *connection_ok = false;
    return Failure({ToolErrorCode::kToolUnavailable, {}});
  }
  if (mysql_stmt_prepare(stmt.get(), sql.data(), sql.size()) != 0) {
    return Failure(StatementFailure(mysql, stmt.get(), deadline, connection_ok));
  }
  // A statement without a result set is a write, a SET, a CALL or a SELECT
  // INTO OUTFILE / DUMPFILE / @var: not a question, and never executed. (A
  // READ ONLY transaction does not stop INTO OUTFILE; this does.)
  if (mysql_stmt_field_count(stmt.get()) == 0 && !IsShow(sql)) {
    return Failure({ToolErrorCode::kQueryFailed, std::string(kNoRowsMessage)});
  }
  unsigned long placeholders = mysql_stmt_param_count(stmt.get());
  if (placeholders != params.size()) {
    return Failure({ToolErrorCode::kQueryFailed,
                    "the statement has " + std::to_string(placeholders) + " placeholders but " +
                        std::to_string(params.size()) + " params were given"});
  }
  std::vector<MYSQL_BIND> param_binds(params.size());
  std::vector<ParamValue> param_values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    BindParam(params[i], param_values[i], param_binds[i]);
  }
  if ((!params.empty() && mysql_stmt_bind_param(stmt.get(), param_binds.data()) != 0) ||
      mysql_stmt_execute(stmt.get()) != 0) {
    return Failure(StatementFailure(mysql, stmt.get(), deadline, connection_ok));
  }

  return FetchRows(mysql, stmt.get(), limits, deadline, connection_ok);
}

}  // namespace diagd::tools::mysql
