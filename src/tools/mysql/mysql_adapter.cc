#include "tools/mysql/mysql_adapter.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/json_writer.h"
#include "core/overloaded.h"
#include "core/text.h"
#include "runtime/fiber.h"
#include "tools/mysql/datasource.h"
#include "tools/mysql/datasource_url.h"
#include "tools/mysql/mariadb_datasource.h"
#include "tools/mysql/sqlite_datasource.h"

namespace diagd::tools::mysql {
namespace {

using Failure = Unexpected<AdapterFailure>;

// The summary names at most this many columns, each cut to this length.
constexpr std::size_t kSummaryColumns = 50;
constexpr std::size_t kSummaryColumnChars = 64;

std::string Summary(const std::string& datasource, const QueryOutput& output) {
  json::JsonWriter w(256);
  w.BeginObject().Key("datasource").String(datasource).Key("columns").BeginArray();
  for (std::size_t i = 0; i < output.columns.size() && i < kSummaryColumns; ++i) {
    w.String(text::TruncateCodePoints(output.columns[i], kSummaryColumnChars));
  }
  w.EndArray()
      .Key("column_count")
      .Int(static_cast<std::int64_t>(output.columns.size()))
      .Key("row_count")
      .Int(static_cast<std::int64_t>(output.rows.size()))
      .Key("truncated")
      .Bool(output.truncated)
      .EndObject();
  return w.Take();
}

}  // namespace

MysqlAdapter::MysqlAdapter(std::vector<Source> sources, MysqlAdapterOptions options)
    : sources_(std::move(sources)), options_(options) {}

MysqlAdapter::~MysqlAdapter() = default;

Result<std::unique_ptr<MysqlAdapter>> MysqlAdapter::Open(
    const std::vector<tools::mysql::DatasourceConfig>& datasources, MysqlAdapterOptions options) {
  std::vector<Source> sources;
  for (const tools::mysql::DatasourceConfig& config : datasources) {
    std::string where = "tools.mysql.datasources." + config.name;
    if (config.name.empty() || config.max_rows < 1 || config.max_cell_chars < 1 ||
        config.timeout_ms < 1) {
      return Error::InvalidArgument(where + ": needs a name and positive bounds");
    }
    std::string lower = text::AsciiLower(config.name);
    for (const Source& source : sources) {
      if (text::AsciiLower(source.config.name) == lower) {
        return Error::InvalidArgument(where + ": configured twice");
      }
    }
    auto location = ParseDatasourceUrl(config.url);
    if (!location) return Error::InvalidArgument(where + ".url: " + location.error().message);
    std::unique_ptr<Datasource> datasource = std::visit(
        Overloaded{[](SqliteLocation& sqlite) -> std::unique_ptr<Datasource> {
                     return std::make_unique<SqliteDatasource>(std::move(sqlite.path));
                   },
                   [&](MysqlLocation& mysql) -> std::unique_ptr<Datasource> {
                     MariadbOptions mariadb;
                     mariadb.timeout = std::chrono::milliseconds(config.timeout_ms);
                     mariadb.max_connections = options.max_connections_per_datasource;
                     return std::make_unique<MariadbDatasource>(std::move(mysql), mariadb);
                   }},
        *location);
    sources.push_back({config, std::move(datasource)});
  }
  return std::unique_ptr<MysqlAdapter>(new MysqlAdapter(std::move(sources), options));
}

const MysqlAdapter::Source* MysqlAdapter::Find(const std::string& name) const {
  std::string lower = text::AsciiLower(name);
  for (const Source& source : sources_) {
    if (text::AsciiLower(source.config.name) == lower) return &source;
  }
  return nullptr;
}

Result<AdapterOutput, AdapterFailure> MysqlAdapter::DoExecute(const ToolRequest& request,
                                                              MonoTime deadline,
                                                              const std::stop_token& cancel) {
  const auto* mysql = std::get_if<MysqlRequest>(&request);
  if (mysql == nullptr) return Failure({ToolErrorCode::kToolUnavailable, {}});
  const Source* source = Find(mysql->datasource);
  if (source == nullptr) return Failure({ToolErrorCode::kQueryFailed, "unknown datasource"});

  QueryLimits limits;
  limits.max_rows = static_cast<std::size_t>(source->config.max_rows);
  limits.max_cell_chars = static_cast<std::size_t>(source->config.max_cell_chars);
  limits.max_bytes = options_.max_result_bytes;
  MonoTime own_deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(source->config.timeout_ms);
  // A statement may run (or a server keep us waiting) up to its timeout:
  // on a server run, on a blocking thread, so it holds no worker that other
  // runs need (runtime/fiber.h). Documents and logs are local reads and stay.
  std::optional<Result<QueryOutput, AdapterFailure>> queried;
  runtime::RunBlocking([&] {
    queried.emplace(source->datasource->Query(mysql->sql, mysql->params, limits,
                                              std::min(deadline, own_deadline), cancel));
  });
  auto output = std::move(*queried);
  if (!output) return Failure(output.error());

  AdapterOutput adapted;
  adapted.raw_response = Summary(source->config.name, *output);
  MysqlResult result;
  result.datasource = mysql->datasource;
  result.sql = mysql->sql;
  result.params = mysql->params;
  result.columns = std::move(output->columns);
  result.rows = std::move(output->rows);
  result.returned_count = result.rows.size();
  result.truncated = output->truncated;
  result.evidence_status =
      result.rows.empty() ? EvidenceStatus::kNoEvidence : EvidenceStatus::kEvidenceFound;
  adapted.result = std::move(result);
  return adapted;
}

}  // namespace diagd::tools::mysql
