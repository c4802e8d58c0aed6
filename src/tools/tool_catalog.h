// The three agent-facing tools as the model is offered them, and the rules
// that turn a model's envelope `input` into a validated business request.
// Built once from configuration (known topics and datasources, lookback
// limits, language of the descriptions) and shared read-only by every run.
//
// Thread safety: immutable after construction; safe for concurrent use.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "tools/documents/documents_tool.h"
#include "tools/input_rules.h"
#include "tools/logs/logs_tool.h"
#include "tools/mysql/mysql_tool.h"
#include "tools/scope.h"
#include "tools/tool_request.h"
#include "tools/tool_types.h"

namespace diagd::tools {

// One tool as sent to a model: `parameters_schema` is the JSON Schema of the
// envelope with the tool's business schema as `input`, fully spelled out,
// `additionalProperties: false` at every level.
struct ToolDefinition {
  std::string name;
  std::string description;
  std::string parameters_schema;  // JSON text
};

struct CatalogOptions {
  logs::LogsRules logs;
  mysql::MysqlRules mysql;
  bool english = false;  // descriptions in English instead of Chinese
};

class ToolCatalog {
 public:
  explicit ToolCatalog(CatalogOptions options);

  const std::vector<ToolDefinition>& Definitions() const { return definitions_; }

  // Validates `input` against the business schema and the tool's own rules
  // (HARNESS.md step 5). Never executes anything.
  InputResult<ToolRequest> ParseInput(ToolName tool, const boost::json::object& input) const;

  // Deterministic, side-effect free scope of a validated request.
  static Scope ScopeOf(const ToolRequest& request);

  static ToolName ToolOf(const ToolRequest& request);

 private:
  CatalogOptions options_;
  std::vector<ToolDefinition> definitions_;
};

}  // namespace diagd::tools
