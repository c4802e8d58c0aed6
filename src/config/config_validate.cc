// The rules that relate two keys. They run on the finished Config, after the
// environment overrides, so they judge what diagd will really use; the
// message goes to whichever key the file set, naming the other one.
#include <string>
#include <string_view>
#include <type_traits>

#include "config/config_parse.h"

namespace diagd::config::internal {
namespace {

constexpr char kMaxRunSeconds[] = "harness.max_run_seconds";
constexpr char kCanonicalTtl[] = "storage.canonical_ttl_seconds";

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

}  // namespace

void CheckLookback(std::string_view table, int default_minutes, int max_minutes,
                   const KeyLocations& at, Problems& problems) {
  if (default_minutes <= max_minutes) return;
  const std::string default_key = std::string(table) + ".default_lookback_minutes";
  const std::string max_key = std::string(table) + ".max_lookback_minutes";
  std::string default_text = std::to_string(default_minutes);
  std::string max_text = std::to_string(max_minutes);
  if (at.Has(default_key)) {
    problems.Add(at.Label(default_key),
                 "must not exceed " + max_key + " (" + max_text + "), got " + default_text);
  } else {
    problems.Add(at.Label(max_key),
                 "must be at least " + default_key + " (" + default_text + "), got " + max_text);
  }
}

Status CheckCrossKeyRules(const Config& config, const KeyLocations& locations) {
  Problems problems;
  tools::RegisteredSections::ForEach([&]<typename Section>(std::type_identity<Section>) {
    Section::CheckRules(config.tools, locations, problems);
  });
  CheckRunFitsTtl(config, locations, problems);
  return problems.ToStatus();
}

}  // namespace diagd::config::internal
