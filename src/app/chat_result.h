// The released result of one chat (docs/specs/release.md), as the user sees
// it: from `diagd ask --json`, the SSE `result` event and the run record.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "release/released_result.h"

namespace diagd::app {

enum class Route { kDiagnosis, kKnowledge, kSystemChat };
const char* RouteString(Route route);  // "DIAGNOSIS", "KNOWLEDGE", "SYSTEM_CHAT"
// The route a caller names to skip the router (`diagd ask --route`, the
// chat API's `route`): "diagnosis", "knowledge" or "chat"; empty otherwise.
std::optional<Route> ParseRouteName(std::string_view name);

struct AnswerCitation {
  std::string document_id;
  std::string source;
  std::string title;
};

struct Answer {
  std::string text;
  std::vector<AnswerCitation> citations;
};

struct ChatResult {
  std::string run_id;
  std::string conversation_id;
  Route route = Route::kDiagnosis;
  release::ReleaseOutcome release_outcome = release::ReleaseOutcome::kFallback;
  std::optional<release::Diagnosis> diagnosis;
  std::optional<release::SafeFallback> fallback;
  std::optional<Answer> answer;
  std::vector<release::ProcessEntry> process;
};

// The section 5 JSON, every key present (null where absent).
std::string ChatResultJson(const ChatResult& result);

// What a person reads: the answer, the diagnosis or the fallback, in the
// configured language (for the CLI and the conversation history).
std::string ChatResultText(const ChatResult& result, bool english);

}  // namespace diagd::app
