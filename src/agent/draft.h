// The diagnosis draft (src/agent/draft.h) and its strict parser. The
// model's final message must be exactly one JSON object of this shape;
// anything else is an invalid output, discarded whole, never repaired by
// extraction (no fence stripping, no prose scanning).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diagd::agent {

enum class Confidence { kHigh, kMedium, kLow };
const char* ConfidenceString(Confidence confidence);

struct Citation {
  std::string tool_call_id;
  std::string quote;
};

struct Conclusion {
  std::string root_cause;
  Confidence confidence = Confidence::kLow;
  std::vector<Citation> evidence;
};

enum class FindingKind { kFound, kNotFound };
const char* FindingKindString(FindingKind kind);

struct Finding {
  std::string tool_call_id;
  FindingKind kind = FindingKind::kFound;
  std::string statement;
  std::optional<std::string> quote;
};

struct Limitations {
  std::vector<std::string> missing_info;  // what the user must supply
  std::vector<std::string> notes;
};

struct DiagnosisDraft {
  std::optional<Conclusion> conclusion;  // null is a legal, complete answer
  std::vector<Finding> findings;
  Limitations limitations;
  std::vector<std::string> next_steps;
};

// Why a final output was rejected: a fixed category, the only thing traced.
enum class DraftRejection {
  kEmpty,            // "EMPTY_OUTPUT": nothing but white space
  kTooLarge,         // "OUTPUT_TOO_LARGE": above kMaxDraftBytes
  kNotJson,          // "NOT_JSON": not one JSON document (prose, fences, trailing text)
  kNotObject,        // "NOT_AN_OBJECT": JSON, but not an object
  kSchemaViolation,  // "SCHEMA_VIOLATION": a missing or unknown key, or a wrong type
};
const char* DraftRejectionString(DraftRejection rejection);

inline constexpr std::size_t kMaxDraftBytes = 64 * 1024;

// White space around the object is allowed (it is not prose); nothing else.
Result<DiagnosisDraft, DraftRejection> ParseDraft(std::string_view text);

// The draft as canonical contract JSON (for the repair call and tests).
std::string DraftJson(const DiagnosisDraft& draft);

}  // namespace diagd::agent
