// The fixed, user-facing sentences of release, in Chinese and English: the
// message of each fallback code and the limitation sentences. Built only from
// a tool's label, a user-safe scope summary, a tool call id and counts, so
// none can carry a stop reason, counter, threshold, budget, score, raw
// payload, model thought or prompt.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config/config.h"
#include "harness/progress_snapshot.h"
#include "release/released_result.h"
#include "tools/tool_types.h"

namespace diagd::release {

const std::string& FallbackMessage(FallbackCode code, config::Language language);

// "日志查询" / "log query": what a user calls the tool.
const char* ToolLabel(tools::ToolName tool, config::Language language);

// Why a completed call is not used as a fact (a snapshot limitation).
// `scope_summary` may be empty (the record could not be read); the call is
// then named by its id.
std::string RecordLimitationSentence(harness::LimitationCode code, tools::ToolName tool,
                                     const std::string& tool_call_id,
                                     const std::string& scope_summary, config::Language language);

// The draft's conclusion was not published: it did not pass verification.
const std::string& ConclusionUnverifiedSentence(config::Language language);

// docs/specs/release.md, a conclusion that does not answer the question: the
// subjects the question names that no checked data mentions; the subjects
// that the cited evidence does not reach; and, for `missing_info`, where
// their data is.
std::string SubjectsUnmentionedSentence(const std::vector<std::string>& subjects,
                                        config::Language language);
std::string SubjectsUnreachedSentence(const std::vector<std::string>& subjects,
                                      config::Language language);
std::string SubjectsWhereQuestion(const std::vector<std::string>& subjects,
                                  config::Language language);

// `count` findings of the draft failed their checks and are not published.
std::string UnpublishedFindingsSentence(std::size_t count, config::Language language);

// Observed facts were cut to `shown`.
std::string FactsCutSentence(std::size_t shown, config::Language language);

// docs/console.md: the run was cancelled before it finished, so only what
// it checked before then is shown.
std::string CancelledSentence(config::Language language);

// docs/model-endpoints.md: what failed, in plain words, for a FAILED fallback's
// limitations: "模型服务拒绝了请求（HTTP 400）……" / "The model service refused
// the request (HTTP 400)...". `http_status` 0 when there was none.
std::string FailureSentence(FailureReason reason, int http_status, config::Language language);

}  // namespace diagd::release
