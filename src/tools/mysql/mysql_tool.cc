#include "tools/mysql/mysql_tool.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "core/overloaded.h"
#include "core/text.h"
#include "tools/mysql/sql_classifier.h"
#include "tools/mysql/sql_normalize.h"

namespace diagd::tools::mysql {
namespace {

InputResult<std::string> MatchDatasource(std::string_view given, const MysqlRules& rules) {
  std::string folded = text::AsciiLower(given);
  for (const auto& name : rules.datasources) {
    if (text::AsciiLower(name) == folded) return name;
  }
  return InputFailure(InputField("datasource"), "UNKNOWN_DATASOURCE");
}

InputResult<std::vector<SqlValue>> ReadParams(const boost::json::object& input) {
  std::vector<SqlValue> params;
  const auto* value = input.if_contains("params");
  if (value == nullptr || value->is_null()) return params;
  if (!value->is_array()) return InputFailure(InputField("params"), "WRONG_TYPE");
  for (std::size_t i = 0; i < value->get_array().size(); ++i) {
    const auto& item = value->get_array()[i];
    switch (item.kind()) {
      case boost::json::kind::null:
        params.emplace_back(std::monostate{});
        break;
      case boost::json::kind::bool_:
        params.emplace_back(item.get_bool());
        break;
      case boost::json::kind::int64:
        params.emplace_back(item.get_int64());
        break;
      case boost::json::kind::uint64:
        params.emplace_back(static_cast<double>(item.get_uint64()));
        break;
      case boost::json::kind::double_:
        params.emplace_back(item.get_double());
        break;
      case boost::json::kind::string:
        params.emplace_back(std::string(item.get_string()));
        break;
      default:
        return InputFailure("input.params[" + std::to_string(i) + "]", "WRONG_TYPE");
    }
  }
  return params;
}

}  // namespace

InputResult<MysqlRequest> ParseInput(const boost::json::object& input, const MysqlRules& rules) {
  if (auto keys = CheckKeys(input, {"datasource", "sql", "params"}, {"datasource", "sql"}); !keys) {
    return Unexpected(keys.error());
  }
  auto datasource_text = ReadString(input, "datasource", Blank::kRejected, 128);
  if (!datasource_text) return Unexpected(datasource_text.error());
  auto datasource = MatchDatasource(*datasource_text, rules);
  if (!datasource) return Unexpected(datasource.error());
  auto sql_text = ReadString(input, "sql", Blank::kRejected, kMaxSqlBytes);
  if (!sql_text) return Unexpected(sql_text.error());
  auto classification = sql::ClassifyStatement(*sql_text, kMaxSqlBytes);
  if (!classification.ok()) {
    return InputFailure(InputField("sql"), sql::RejectionName(classification.rejection));
  }
  auto params = ReadParams(input);
  if (!params) return Unexpected(params.error());
  if (static_cast<int>(params->size()) != classification.placeholder_count) {
    return InputFailure(InputField("params"), "PARAM_COUNT_MISMATCH");
  }
  return MysqlRequest{std::move(*datasource), std::move(*sql_text), std::move(*params)};
}

boost::json::value SqlValueJson(const SqlValue& value) {
  return std::visit(Overloaded{[](std::monostate) { return boost::json::value(nullptr); },
                               [](bool b) { return boost::json::value(b); },
                               [](std::int64_t i) { return boost::json::value(i); },
                               [](double d) { return boost::json::value(d); },
                               [](const std::string& s) { return boost::json::value(s); }},
                    value);
}

Scope ScopeOf(const MysqlRequest& request) {
  std::string sql = sql::NormalizeForScope(request.sql);
  boost::json::array params;
  for (const auto& param : request.params) params.push_back(SqlValueJson(param));
  boost::json::array identity{"query_mysql", text::AsciiLower(request.datasource), sql,
                              json::Canonical(params)};
  std::string summary = request.datasource + ": " + text::TruncateCodePoints(sql, 100);
  if (!request.params.empty()) {
    summary += " [" + std::to_string(request.params.size()) + " params]";
  }
  return {json::Canonical(identity), std::move(summary)};
}

boost::json::object InputSchema(const MysqlRules& rules) {
  boost::json::object datasource{{"type", "string"}};
  if (!rules.datasources.empty()) {
    boost::json::array names;
    for (const auto& name : rules.datasources) names.emplace_back(name);
    datasource["enum"] = std::move(names);
  }
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"datasource", "sql"}},
      {"properties",
       {{"datasource", std::move(datasource)},
        {"sql", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxSqlBytes}}},
        {"params",
         {{"type", "array"}, {"items", {{"type", {"string", "number", "boolean", "null"}}}}}}}},
  };
}

boost::json::object RequestJson(const MysqlRequest& request) {
  boost::json::array params;
  for (const auto& param : request.params) params.push_back(SqlValueJson(param));
  return {{"datasource", request.datasource}, {"sql", request.sql}, {"params", std::move(params)}};
}

}  // namespace diagd::tools::mysql
