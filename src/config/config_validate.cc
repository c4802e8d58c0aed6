// The rules that relate two keys. They run on the finished Config, after the
// environment overrides, so they judge what diagd will really use; the
// message goes to whichever key the file set, naming the other one.
#include <string>

#include "config/config_parse.h"

namespace diagd::config::internal {
namespace {

constexpr char kMaxRunSeconds[] = "harness.max_run_seconds";
constexpr char kCanonicalTtl[] = "storage.canonical_ttl_seconds";
constexpr char kDocumentsBackend[] = "tools.documents.backend";

// A tool's default lookback within its maximum; `tool` is "logs" or "metrics".
void CheckLookback(const std::string& tool, int default_minutes, int max_minutes,
                   const KeyLocations& at, Problems& problems) {
  if (default_minutes <= max_minutes) return;
  const std::string kDefaultLookback = "tools." + tool + ".default_lookback_minutes";
  const std::string kMaxLookback = "tools." + tool + ".max_lookback_minutes";
  std::string default_text = std::to_string(default_minutes);
  std::string max_text = std::to_string(max_minutes);
  if (at.Has(kDefaultLookback)) {
    problems.Add(at.Label(kDefaultLookback), std::string("must not exceed ") + kMaxLookback + " (" +
                                                 max_text + "), got " + default_text);
  } else {
    problems.Add(at.Label(kMaxLookback), std::string("must be at least ") + kDefaultLookback +
                                             " (" + default_text + "), got " + max_text);
  }
}

// A run's canonical records must outlive the run that reads them back.
void CheckRunFitsTtl(const Config& config, const KeyLocations& at, Problems& problems) {
  int run = config.harness.max_run_seconds;
  int ttl = config.storage.canonical_ttl_seconds;
  if (run < ttl) return;
  if (at.Has(kCanonicalTtl)) {
    problems.Add(at.Label(kCanonicalTtl), std::string("must exceed ") + kMaxRunSeconds + " (" +
                                              std::to_string(run) + "), got " +
                                              std::to_string(ttl));
  } else {
    problems.Add(at.Label(kMaxRunSeconds), std::string("must be less than ") + kCanonicalTtl +
                                               " (" + std::to_string(ttl) + "), got " +
                                               std::to_string(run));
  }
}

void CheckDocumentsUrl(const DocumentsToolConfig& documents, const KeyLocations& at,
                       Problems& problems) {
  if (documents.backend != DocumentsToolConfig::Backend::kHttp || !documents.url.empty()) return;
  problems.Add(at.Label(kDocumentsBackend),
               "\"http\" requires tools.documents.url (an http:// or https:// URL)");
}

void CheckMetricsUrl(const ToolsConfig& tools, const KeyLocations& at, Problems& problems) {
  if (!tools.metrics || !tools.metrics->url.empty()) return;
  problems.Add(at.Label("tools.metrics"),
               "requires url (the http:// or https:// base of the Prometheus query API)");
}

}  // namespace

Status CheckCrossKeyRules(const Config& config, const KeyLocations& locations) {
  Problems problems;
  const ToolsConfig& tools = config.tools;
  CheckLookback("logs", tools.logs.default_lookback_minutes, tools.logs.max_lookback_minutes,
                locations, problems);
  if (tools.metrics) {
    CheckLookback("metrics", tools.metrics->default_lookback_minutes,
                  tools.metrics->max_lookback_minutes, locations, problems);
  }
  CheckMetricsUrl(tools, locations, problems);
  CheckRunFitsTtl(config, locations, problems);
  CheckDocumentsUrl(config.tools.documents, locations, problems);
  return problems.ToStatus();
}

}  // namespace diagd::config::internal
