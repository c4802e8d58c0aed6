// SubjectCheck: release rule 1's check that a conclusion answers the
// question that was asked (docs/specs/release.md), after the evidence guard and
// before the semantic guard, for every provider, with no model call.
//
// The question (with its conversation's earlier questions) names subjects
// (subject_names.h). Each of the run's calls that read something (not
// ERROR) is looked at in its canonical record: the data it returned and the
// topic, datasource or tables it read, never the text the model asked with
// (a query or a statement), so a model cannot make a subject "mentioned" by
// asking for it. Then:
//   - no subjects: SKIPPED;
//   - no record mentions any subject: FAILED, `unmentioned` = every subject;
//   - no cited call's record mentions one: FAILED, `unreached` = the
//     subjects the data mentions;
//   - otherwise PASSED.
//
// Thread safety: const methods only; the store must be safe for concurrent
// reads.
#pragma once

#include <string>
#include <vector>

#include "agent/draft.h"
#include "harness/progress_snapshot.h"
#include "release/released_result.h"
#include "release/subject_names.h"
#include "tools/canonical_store.h"
#include "tools/tool_result.h"

namespace diagd::release {

struct SubjectReport {
  GuardResult result = GuardResult::kSkipped;  // kPassed, kFailed or kSkipped
  std::vector<std::string> unmentioned;        // subjects no checked data mentions
  std::vector<std::string> unreached;          // subjects the cited evidence does not reach
};

// The texts of a record that may mention a subject, in lower case: what the
// result's tool names as its mention texts (its face's MentionTexts: the
// topic, datasource and tables read, and the data returned).
std::vector<std::string> MentionTexts(const tools::ToolResult& result);

class SubjectCheck {
 public:
  SubjectCheck(tools::CanonicalInvocationStore& store, SubjectVocabulary vocabulary)
      : store_(store), vocabulary_(std::move(vocabulary)) {}

  SubjectReport Check(const std::string& run_id, const std::vector<std::string>& questions,
                      const harness::ProgressSnapshot& snapshot,
                      const agent::Conclusion& conclusion) const;

 private:
  tools::CanonicalInvocationStore& store_;
  SubjectVocabulary vocabulary_;
};

}  // namespace diagd::release
