// query_mysql's results as the face presents them (mysql_tool.h).
#include <algorithm>
#include <bit>

#include "core/overloaded.h"
#include "core/text.h"
#include "tools/mysql/mysql_tool.h"
#include "tools/mysql/sql_lexer.h"

namespace diagd::tools::mysql {
namespace {

// Tags of a SQL value. Stored: never renumber.
enum class SqlTag : std::uint8_t { kNull = 0, kBool = 1, kInt = 2, kDouble = 3, kText = 4 };

void WriteValue(const SqlValue& value, ByteWriter& w) {
  auto tag = [&](SqlTag t) { w.Byte(static_cast<std::uint8_t>(t)); };
  std::visit(Overloaded{[&](std::monostate) { tag(SqlTag::kNull); },
                        [&](bool b) {
                          tag(SqlTag::kBool);
                          w.Bool(b);
                        },
                        [&](std::int64_t i) {
                          tag(SqlTag::kInt);
                          w.Fixed64(static_cast<std::uint64_t>(i));
                        },
                        [&](double d) {
                          tag(SqlTag::kDouble);
                          w.Fixed64(std::bit_cast<std::uint64_t>(d));
                        },
                        [&](const std::string& s) {
                          tag(SqlTag::kText);
                          w.String(s);
                        }},
             value);
}

SqlValue ReadValue(ByteReader& r) {
  switch (static_cast<SqlTag>(r.Byte())) {
    case SqlTag::kNull:
      return std::monostate();
    case SqlTag::kBool:
      return r.Bool();
    case SqlTag::kInt:
      return static_cast<std::int64_t>(r.Fixed64());
    case SqlTag::kDouble:
      return std::bit_cast<double>(r.Fixed64());
    case SqlTag::kText:
      return r.String();
  }
  r.Fail();
  return std::monostate();
}

void WriteSqlValue(const SqlValue& value, json::JsonWriter& w) {
  std::visit(Overloaded{[&](std::monostate) { w.Null(); }, [&](bool b) { w.Bool(b); },
                        [&](std::int64_t i) { w.Int(i); }, [&](double d) { w.Double(d); },
                        [&](const std::string& s) { w.String(s); }},
             value);
}

std::string RowText(const std::vector<std::string>& columns, const std::vector<SqlValue>& row) {
  std::string out;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out += ", ";
    out += (i < columns.size() ? columns[i] : "?") + "=" + CellText(row[i]).value_or("NULL");
  }
  return out;
}

}  // namespace

std::optional<std::string> CellText(const SqlValue& cell) {
  return std::visit(
      Overloaded{[](std::monostate) -> std::optional<std::string> { return std::nullopt; },
                 [](bool b) -> std::optional<std::string> { return b ? "true" : "false"; },
                 [](std::int64_t i) -> std::optional<std::string> { return std::to_string(i); },
                 [](double d) -> std::optional<std::string> {
                   // The same digits the observation's JSON writer produced.
                   std::string out;
                   json::AppendDouble(d, out);
                   return out;
                 },
                 [](const std::string& s) -> std::optional<std::string> { return s; }},
      cell);
}

std::vector<std::string> TablesRead(const std::string& sql) {
  std::vector<sql::Token> code;
  for (const auto& token : sql::Lex(sql, sql::LexOptions::MySql()).tokens) {
    if (sql::IsCode(token)) code.push_back(token);
  }
  auto is_name = [&](std::size_t i) {
    return i < code.size() && (code[i].kind == sql::TokenKind::kWord ||
                               code[i].kind == sql::TokenKind::kQuotedIdentifier);
  };
  std::vector<std::string> tables;
  for (std::size_t i = 0; i + 1 < code.size(); ++i) {
    if (code[i].kind != sql::TokenKind::kWord) continue;
    std::string keyword = text::AsciiUpper(code[i].text);
    if (keyword != "FROM" && keyword != "JOIN") continue;
    std::size_t at = i + 1;
    if (!is_name(at)) continue;  // a subquery, or nothing
    while (at + 2 < code.size() && code[at + 1].text == "." && is_name(at + 2)) at += 2;
    std::string table = text::AsciiLower(sql::IdentifierName(code[at]));
    if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
  }
  return tables;
}

std::string QueryMysql::Description(const CatalogOptions& options) {
  std::string description =
      options.english ? "Run one read-only SQL statement (SELECT/WITH/SHOW/DESCRIBE/EXPLAIN) on a "
                        "configured datasource, with ? placeholders bound from params."
                      : "在已配置的数据源上执行一条只读 SQL（SELECT/WITH/SHOW/DESCRIBE/EXPLAIN），"
                        "参数用 ? 占位并放在 params 中。";
  std::vector<std::string> datasources = options.mysql.datasources;
  for (std::size_t i = 0; i < datasources.size() && i < options.mysql.dialects.size(); ++i) {
    datasources[i] += " (" + options.mysql.dialects[i] + ")";
  }
  face::AppendNames(description, options.english ? " Datasources: " : " 可用数据源：",
                    datasources);
  return description;
}

void QueryMysql::Bind(Result& r, const Request& q) {
  r.datasource = q.datasource;
  r.sql = q.sql;
  r.params = q.params;
}

void QueryMysql::Canonicalize(Result& r, const ResultLimits& limits) {
  face::BoundList(r.rows, limits.max_rows, r.truncated);
  for (auto& row : r.rows) {
    for (auto& cell : row) {
      if (auto* s = std::get_if<std::string>(&cell)) {
        face::BoundText(*s, limits.max_cell_chars, r.truncated);
      }
    }
  }
  face::SetCountAndStatus(r, r.rows.size());
}

const std::vector<std::string_view>& QueryMysql::CanonicalKeys() {
  static const std::vector<std::string_view> kKeys = {
      "evidence_status", "tool_call_id", "datasource",     "sql",      "params",
      "columns",         "rows",         "returned_count", "truncated"};
  return kKeys;
}

const std::vector<std::string_view>& QueryMysql::ObservationKeys() {
  static const std::vector<std::string_view> kKeys = {
      "tool_call_id", "datasource", "sql", "params", "evidence_status", "columns", "rows",
      "truncated"};
  return kKeys;
}

void QueryMysql::WriteField(const Result& r, std::string_view key, const ResultView& view,
                            json::JsonWriter& w) {
  w.Key(key);
  if (key == "datasource") {
    w.String(r.datasource);
  } else if (key == "sql") {
    w.String(r.sql);
  } else if (key == "params") {
    w.BeginArray();
    for (const auto& p : r.params) WriteSqlValue(p, w);
    w.EndArray();
  } else if (key == "columns") {
    w.BeginArray();
    for (const auto& c : r.columns) w.String(c);
    w.EndArray();
  } else if (key == "rows") {
    w.BeginArray();
    std::size_t n = std::min(r.rows.size(), view.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      w.BeginArray();
      for (const auto& cell : r.rows[i]) WriteSqlValue(cell, w);
      w.EndArray();
    }
    w.EndArray();
  }
}

bool QueryMysql::AnyCitable(const Result& r, const TextTest& holds) {
  for (const auto& row : r.rows) {
    for (const auto& cell : row) {
      auto cell_text = CellText(cell);
      if (cell_text && holds(*cell_text)) return true;
    }
  }
  return false;
}

void QueryMysql::MentionTexts(const Result& r, const TextSink& add) {
  add(r.datasource);
  NamesRead(r, add);
  for (const auto& column : r.columns) add(column);
  for (const auto& row : r.rows) {
    for (const auto& cell : row) {
      if (auto text = CellText(cell)) add(*text);
    }
  }
}

void QueryMysql::NamesRead(const Result& r, const TextSink& add) {
  for (const auto& table : TablesRead(r.sql)) add(table);
}

void QueryMysql::Facts(const Result& r, const TextSink& add) {
  for (const auto& row : r.rows) add(RowText(r.columns, row));
}

void QueryMysql::EncodeResult(const Result& r, ByteWriter& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.datasource);
  w.String(r.sql);
  w.Varint(r.params.size());
  for (const SqlValue& p : r.params) WriteValue(p, w);
  w.Varint(r.columns.size());
  for (const std::string& c : r.columns) w.String(c);
  w.Varint(r.rows.size());
  for (const auto& row : r.rows) {
    w.Varint(row.size());
    for (const SqlValue& cell : row) WriteValue(cell, w);
  }
  w.Varint(r.returned_count);
  w.Bool(r.truncated);
}

QueryMysql::Result QueryMysql::DecodeResult(ByteReader& r) {
  MysqlResult m;
  m.evidence_status = r.Named(kAllEvidenceStatuses, EvidenceStatusString);
  m.tool_call_id = r.String();
  m.datasource = r.String();
  m.sql = r.String();
  std::size_t params = r.Count();
  for (std::size_t i = 0; i < params && r.ok(); ++i) m.params.push_back(ReadValue(r));
  std::size_t columns = r.Count();
  for (std::size_t i = 0; i < columns && r.ok(); ++i) m.columns.push_back(r.String());
  std::size_t rows = r.Count();
  for (std::size_t i = 0; i < rows && r.ok(); ++i) {
    std::vector<SqlValue> row;
    std::size_t cells = r.Count();
    for (std::size_t j = 0; j < cells && r.ok(); ++j) row.push_back(ReadValue(r));
    m.rows.push_back(std::move(row));
  }
  m.returned_count = r.Size();
  m.truncated = r.Bool();
  return m;
}

}  // namespace diagd::tools::mysql
