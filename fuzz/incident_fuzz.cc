// config::ParseIncident: an eval suite's incident.toml, which may come
// from someone else (a shared suite, a generated one).
//
// Checks: a refusal's message names the incident file and is valid UTF-8;
// an accepted incident keeps the promises of incident.h and of the
// expectation rules: a non-blank question, the folder's name, the
// workspace's paths absolute, and an expectation that can be scored (a
// DIAGNOSIS has a root-cause phrase; cause_any only with DIAGNOSIS and
// fallback_code only with FALLBACK; no empty phrase).
#include <algorithm>

#include "config/incident.h"
#include "core/text.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace config = diagd::config;

bool NoneBlank(const std::vector<std::string>& phrases) {
  return std::none_of(phrases.begin(), phrases.end(), [](const std::string& phrase) {
    return phrase.find_first_not_of(" \t\r\n") == std::string::npos;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view toml = diagd::fuzz::Bytes(data, size);
  static const config::Config base = *config::ParseConfig("", "/srv/diagd", {});
  auto parsed = config::ParseIncident(toml, "/srv/suite/pool-slow", base);
  if (!parsed) {
    FUZZ_CHECK(parsed.error().message.starts_with("/srv/suite/pool-slow/incident.toml"));
    FUZZ_CHECK(diagd::text::IsValidUtf8(parsed.error().message));
    return 0;
  }
  const config::Incident& incident = *parsed;
  FUZZ_CHECK(incident.name == "pool-slow");
  FUZZ_CHECK(incident.question.find_first_not_of(" \t\r\n") != std::string::npos);
  FUZZ_CHECK(incident.config.tools.documents.path.is_absolute());
  FUZZ_CHECK(incident.config.tools.logs.path.is_absolute());
  const config::IncidentExpectation& expect = incident.expect;
  if (expect.outcome == config::ExpectedOutcome::kDiagnosis) {
    FUZZ_CHECK(!expect.root_cause_any.empty());
  } else {
    FUZZ_CHECK(expect.cause_any.empty());
  }
  if (expect.fallback_code) FUZZ_CHECK(expect.outcome == config::ExpectedOutcome::kFallback);
  FUZZ_CHECK(NoneBlank(expect.root_cause_any) && NoneBlank(expect.cause_any));
  return 0;
}
