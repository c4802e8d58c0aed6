// query_mysql: its face (tool_face.h): input rules, schema and scope, and
// what release, the views and the store need of its results.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "tools/mysql/mysql_types.h"
#include "tools/tool_face.h"

namespace diagd::tools::mysql {

inline constexpr std::size_t kMaxSqlBytes = 10000;


// The datasource is matched case-insensitively and stored as configured; the
// statement must pass the read-only classifier (docs/sql-safety.md), and the
// number of params must equal the number of `?` placeholders.
InputResult<MysqlRequest> ParseInput(const boost::json::object& input, const MysqlRules& rules);
// Identity: lower-cased datasource, normalized SQL text, params as canonical
// JSON. The summary names the datasource and the statement, never the params.
Scope ScopeOf(const MysqlRequest& request);
boost::json::object InputSchema(const MysqlRules& rules);
boost::json::object RequestJson(const MysqlRequest& request);

boost::json::value SqlValueJson(const SqlValue& value);

// The tables a statement reads (after FROM and JOIN), lower-cased, each once.
std::vector<std::string> TablesRead(const std::string& sql);

struct QueryMysql {
  static constexpr ToolName kName = kQueryMysql;
  using Request = MysqlRequest;
  using Result = MysqlResult;

  static bool Offered(const CatalogOptions&) { return true; }
  // Names the datasources and the SQL each speaks.
  static std::string Description(const CatalogOptions& options);
  static boost::json::object InputSchema(const CatalogOptions& options) {
    return mysql::InputSchema(options.mysql);
  }
  static InputResult<Request> ParseInput(const boost::json::object& input,
                                         const CatalogOptions& options) {
    return mysql::ParseInput(input, options.mysql);
  }
  static Scope ScopeOf(const Request& request) { return mysql::ScopeOf(request); }
  static boost::json::object RequestJson(const Request& request) {
    return mysql::RequestJson(request);
  }
  static void Bind(Result& result, const Request& request);
  // A row is usable whatever its cells hold: none is dropped.
  static void Canonicalize(Result& result, const ResultLimits& limits);
  static std::size_t Items(const Result& result) { return result.rows.size(); }
  static const std::vector<std::string_view>& CanonicalKeys();
  static const std::vector<std::string_view>& ObservationKeys();
  static void WriteField(const Result& result, std::string_view key, const ResultView& view,
                         json::JsonWriter& w);
  // A quote is verified against a cell's text (CellText).
  static bool AnyCitable(const Result& result, const TextTest& holds);
  static void MentionTexts(const Result& result, const TextSink& add);
  // The tables the statement read: names a question may contain.
  static void NamesRead(const Result& result, const TextSink& add);
  static void Facts(const Result& result, const TextSink& add);
  static const char* Label(bool english) { return english ? "database query" : "数据库查询"; }
  static void EncodeResult(const Result& result, ByteWriter& w);
  static Result DecodeResult(ByteReader& r);
  // Its rules and bounds from its config section (NAME_settings.cc).
  static void ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog);
  static void ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary);
  // The backend (NAME_backend.cc, in the backend library).
  static diagd::Result<OpenedBackend> OpenBackend(const BackendContext& context);
  // `diagd check` (NAME_check.cc, in the backend library).
  static std::vector<CheckRow> Check(const CheckContext& context);
  static std::span<const AdviceEntry> Advice();
};

}  // namespace diagd::tools::mysql
