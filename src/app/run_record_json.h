// The run record as an operator reads it (docs/run-store.md): from
// `diagd runs show` and GET /api/v1/runs/{id}; the run list and a
// conversation's runs (12.4).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/run_store.h"

namespace diagd::app {

// A list entry's question is cut to this many code points.
inline constexpr std::size_t kListQuestionChars = 200;

std::string RunRecordJson(const RunRecord& run);
// {"runs": [...], "next": cursor or null}, each entry with its question cut.
std::string RunListJson(const std::vector<RunSummary>& runs,
                        const std::optional<std::string>& next = std::nullopt);
// {"conversation_id", "runs": [{run_id, question, route, release_outcome,
// created_at}], "next": cursor or null}, the runs in the order given
// (oldest first), each with its whole question.
std::string ConversationJson(const std::string& conversation_id,
                             const std::vector<RunSummary>& runs,
                             const std::optional<std::string>& next = std::nullopt);

}  // namespace diagd::app
