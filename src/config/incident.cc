#include "config/incident.h"

#include <iterator>

#include "config/config_parse.h"
#include "config/config_rules.h"
#include "config/toml_reader.h"

namespace diagd::config {
namespace {

using internal::KeyLocations;
using internal::Problem;
using internal::Problems;
using internal::TableReader;

constexpr const char* kFileName = "incident.toml";

Problem CheckToolName(std::string_view value) {
  for (std::string_view tool : {"search_documents", "query_logs", "query_mysql"}) {
    if (value == tool) return std::nullopt;
  }
  return "expected search_documents, query_logs or query_mysql, got " + internal::Quote(value);
}

// Records that `key` of `table` is missing: named with the file, as a key
// that is absent has no line of its own.
class Missing {
 public:
  Missing(const KeyLocations& locations, Problems& problems)
      : locations_(locations), problems_(problems) {}
  void operator()(const TableReader& table, std::string_view key, std::string_view problem) const {
    problems_.Add(locations_.At(0) + table.KeyPath(key), problem);
  }

 private:
  const KeyLocations& locations_;
  Problems& problems_;
};

void ReadExpectation(TableReader expect, IncidentExpectation& out, const Missing& missing) {
  if (auto outcome = expect.ReadChoice("outcome", {"DIAGNOSIS", "FALLBACK", "ANSWER"})) {
    out.outcome = static_cast<ExpectedOutcome>(*outcome);
  } else if (!expect.Has("outcome")) {
    missing(expect, "outcome", "required: DIAGNOSIS, FALLBACK or ANSWER");
  }
  constexpr std::string_view kCodes[] = {"INSUFFICIENT_EVIDENCE", "MISSING_REQUIRED_CONTEXT",
                                         "FAILED"};
  if (auto code = expect.ReadChoice("fallback_code", {kCodes[0], kCodes[1], kCodes[2]})) {
    out.fallback_code = std::string(kCodes[*code]);
  }
  // A blank phrase is in almost every root cause: it would score any
  // diagnosis right.
  expect.Read("root_cause_any", out.root_cause_any, internal::CheckNotBlank);
  expect.Read("cause_any", out.cause_any, internal::CheckNotBlank);
  expect.Read("must_check", out.must_check, CheckToolName);
  if (out.outcome == ExpectedOutcome::kDiagnosis && out.root_cause_any.empty() &&
      !expect.Has("root_cause_any")) {
    missing(expect, "root_cause_any", "required when outcome is DIAGNOSIS");
  }
  // No phrase at all: no diagnosis could be scored right.
  if (expect.Has("root_cause_any") && out.root_cause_any.empty()) {
    expect.AddProblem("root_cause_any", "at least one phrase");
  }
  // An empty list would ask for a cause no root cause can name: every
  // diagnosis would be SHALLOW. Leaving the key out says "cause not checked".
  if (expect.Has("cause_any") && out.cause_any.empty()) {
    expect.AddProblem("cause_any", "at least one phrase (leave the key out to check no cause)");
  }
  if (!out.cause_any.empty() && out.outcome != ExpectedOutcome::kDiagnosis) {
    expect.AddProblem("cause_any", "only with outcome DIAGNOSIS");
  }
  if (out.fallback_code && out.outcome != ExpectedOutcome::kFallback) {
    expect.AddProblem("fallback_code", "only with outcome FALLBACK");
  }
  expect.RejectUnknownKeys();
}

}  // namespace

const char* ExpectedOutcomeName(ExpectedOutcome outcome) {
  switch (outcome) {
    case ExpectedOutcome::kDiagnosis:
      return "DIAGNOSIS";
    case ExpectedOutcome::kFallback:
      return "FALLBACK";
    case ExpectedOutcome::kAnswer:
      return "ANSWER";
  }
  return "DIAGNOSIS";
}

Result<Incident> LoadIncident(const std::filesystem::path& dir, const Config& base) {
  auto absolute = internal::AbsoluteDir(dir);
  if (!absolute) return absolute.error();
  Result<std::string> read = internal::ReadConfigText(*absolute / kFileName, "incident file");
  if (!read) return read.error();
  return ParseIncident(*read, *absolute, base);
}

Result<Incident> ParseIncident(std::string_view text, const std::filesystem::path& dir,
                               const Config& base) {
  const std::filesystem::path file = dir / kFileName;
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(kFileName));
  } catch (const toml::parse_error& error) {
    return Error::InvalidArgument(file.string() + ":" +
                                  std::to_string(error.source().begin.line) +
                                  ": syntax error: " + std::string(error.description()));
  } catch (const std::exception& error) {
    return Error::InvalidArgument(file.string() + ": " + error.what());
  }

  Incident incident;
  incident.name = dir.filename().string();
  incident.dir = dir;
  incident.config = base;
  incident.config.tools = ToolsConfig{};
  incident.config.now.reset();
  KeyLocations locations{file.string()};
  Problems problems;
  TableReader reader(root, "", locations, problems);
  Missing missing(locations, problems);
  reader.Read("question", incident.question, internal::CheckNotBlank);
  if (incident.question.empty() && !reader.Has("question")) {
    missing(reader, "question", "required");
  }
  if (auto language = reader.ReadChoice("language", {"zh", "en"})) {
    incident.config.language = *language == 0 ? Language::kZh : Language::kEn;
  }
  reader.Read("now", incident.config.now);
  if (auto tools = reader.Table("tools")) internal::ReadTools(*tools, incident.config.tools);
  if (auto expect = reader.Table("expect")) {
    ReadExpectation(*expect, incident.expect, missing);
  } else if (!reader.Has("expect")) {
    missing(reader, "expect", "required: the [expect] table");
  }
  reader.RejectUnknownKeys("question, language, now, [tools], [expect]");
  if (Status read = problems.ToStatus(); !read) return read.error();

  internal::ResolveToolPaths(dir, incident.config.tools);
  if (Status checked = internal::CheckCrossKeyRules(incident.config, locations); !checked) {
    return checked.error();
  }
  return incident;
}

}  // namespace diagd::config
