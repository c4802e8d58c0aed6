// The registered tools as the model is offered them, and the rules
// that turn a model's envelope `input` into a validated business request.
// Built from configuration (known topics and datasources, lookback limits,
// language of the descriptions) and shared by every run. The log topics
// may be listed again as the server runs (`TopicSource`): a topic file
// added to the logs folder is offered, and accepted, without a restart.
//
// Thread safety: safe for concurrent use. What `Definitions()` returns is an
// immutable snapshot.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"
#include "tools/catalog_options.h"
#include "tools/input_rules.h"
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


// What keeps the options up to date while the catalog lives: `refresh`
// (every backend's refresh_catalog, tool_backend.h) brings a copy of them up
// to date, at most once per `interval`.
struct CatalogRefresh {
  std::function<void(CatalogOptions&)> refresh;
  const Clock* clock = nullptr;
  std::chrono::milliseconds interval{5000};
};

class ToolCatalog {
 public:
  // Without a refresh, `options` are the options for good.
  explicit ToolCatalog(CatalogOptions options, CatalogRefresh refresh = {});

  // The tools as offered now. A run takes them once, at its start: a topic
  // that appears later is offered to the runs that start after.
  std::shared_ptr<const std::vector<ToolDefinition>> Definitions() const;

  // The log topics known now (empty when any plain name is accepted).
  std::vector<std::string> Topics() const;

  // Validates `input` against the business schema and the tool's own rules
  // (the interceptor's step 5), with the topics known now. Never executes anything.
  InputResult<ToolRequest> ParseInput(ToolName tool, const boost::json::object& input) const;

  // Deterministic, side-effect free scope of a validated request.
  static Scope ScopeOf(const ToolRequest& request);

  static ToolName ToolOf(const ToolRequest& request) { return tools::ToolOf(request); }

 private:
  struct Snapshot {
    CatalogOptions options;
    std::vector<ToolDefinition> definitions;
  };
  static std::shared_ptr<const Snapshot> Build(CatalogOptions options);
  // The snapshot to use now, refreshing the options when that is due.
  std::shared_ptr<const Snapshot> Current() const;

  const CatalogRefresh refresh_;
  mutable Mutex mu_;
  mutable std::shared_ptr<const Snapshot> current_ GUARDED_BY(mu_);
  mutable MonoTime next_refresh_ GUARDED_BY(mu_);
};

}  // namespace diagd::tools
