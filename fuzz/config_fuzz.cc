// config::ParseConfig: diagd.toml, written by an operator (or copied from
// somewhere) and read by every entry point.
//
// Checks: a refusal's message is valid UTF-8 and never holds the API key
// given through the environment; an accepted Config keeps the promises of
// config.h: every model component resolved, every path absolute, a listen
// address that ParseListenAddress reads, lookback limits in order.
#include "config/config.h"
#include "core/text.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace config = diagd::config;

// A key no input from the seed corpus holds, so that finding it in a message
// means the message echoed the environment.
constexpr std::string_view kApiKey = "sk-fuzz-0b5e7f13c2";

bool Absolute(const std::string& sqlite_or_other_url) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (!sqlite_or_other_url.starts_with(kSqlite)) return true;
  std::string_view path = std::string_view(sqlite_or_other_url).substr(kSqlite.size());
  return path == ":memory:" || path.starts_with("/");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view toml = diagd::fuzz::Bytes(data, size);
  const config::Environment env = {{"DIAGD_MODEL_API_KEY", std::string(kApiKey)}};
  auto parsed = config::ParseConfig(toml, "/srv/diagd", env);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    FUZZ_CHECK(diagd::text::IsValidUtf8(parsed.error().message));
    if (toml.find(kApiKey) == std::string_view::npos) {
      FUZZ_CHECK(parsed.error().message.find(kApiKey) == std::string::npos);
    }
    return 0;
  }
  const config::Config& cfg = *parsed;
  FUZZ_CHECK(cfg.base_dir == "/srv/diagd");
  FUZZ_CHECK(cfg.model.per_component.size() == std::size(config::kAllModelComponents));
  for (const auto& [component, endpoint] : cfg.model.per_component) {
    FUZZ_CHECK(!endpoint.name.empty() && !endpoint.base_url.empty());
    FUZZ_CHECK(endpoint.timeout_seconds > 0);
  }
  FUZZ_CHECK(config::ParseListenAddress(cfg.server.listen).has_value());
  FUZZ_CHECK(Absolute(cfg.storage.runs));
  FUZZ_CHECK(cfg.tools.documents.path.is_absolute());
  FUZZ_CHECK(cfg.tools.documents.cache_path.is_absolute());
  FUZZ_CHECK(cfg.tools.logs.path.is_absolute());
  FUZZ_CHECK(cfg.tools.logs.default_lookback_minutes <= cfg.tools.logs.max_lookback_minutes);
  for (const auto& source : cfg.tools.datasources) FUZZ_CHECK(Absolute(source.url));
  return 0;
}
