#include "release/subject_check.h"

#include <algorithm>

#include "core/text.h"
#include "release/cited_record.h"

namespace diagd::release {
namespace {

// What one call of the run offers the check: its mention texts.
struct ReadCall {
  std::string tool_call_id;
  std::vector<std::string> texts;
};

bool Mentions(const std::vector<std::string>& texts, const Subject& subject) {
  for (const auto& text : texts) {
    for (const auto& form : subject.forms) {
      if (ContainsName(text, form)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> MentionTexts(const tools::ToolResult& result) {
  std::vector<std::string> texts;
  tools::VisitFace(result, [&](auto face, const auto& r) {
    decltype(face)::MentionTexts(r, [&](const std::string& text) {
      if (!text.empty()) texts.push_back(text::AsciiLower(text));
    });
  });
  return texts;
}

SubjectReport SubjectCheck::Check(const std::string& run_id,
                                  const std::vector<std::string>& questions,
                                  const harness::ProgressSnapshot& snapshot,
                                  const agent::Conclusion& conclusion) const {
  // The calls that read something, and the tables they read: a table the
  // run read is a name the question may contain.
  std::vector<ReadCall> calls;
  SubjectVocabulary vocabulary = vocabulary_;
  for (const auto& entry : snapshot.entries) {
    ReadCitedRecord(store_, run_id, entry.tool_call_id, [&](const tools::CanonicalRecord& record) {
      if (tools::EvidenceStatusOf(record.result) == tools::EvidenceStatus::kError) return;
      calls.push_back({entry.tool_call_id, MentionTexts(record.result)});
      tools::VisitFace(record.result, [&](auto face, const auto& r) {
        decltype(face)::NamesRead(r, [&](const std::string& name) {
          vocabulary.tables.push_back(name);
        });
      });
    });
  }

  SubjectReport report;
  std::vector<Subject> subjects = SubjectsOf(questions, vocabulary);
  if (subjects.empty()) return report;

  std::vector<const Subject*> mentioned;
  std::vector<const ReadCall*> mentioning;
  for (const auto& subject : subjects) {
    bool any = false;
    for (const auto& call : calls) {
      if (!Mentions(call.texts, subject)) continue;
      any = true;
      if (std::find(mentioning.begin(), mentioning.end(), &call) == mentioning.end()) {
        mentioning.push_back(&call);
      }
    }
    if (any) mentioned.push_back(&subject);
  }
  report.result = GuardResult::kFailed;
  if (mentioned.empty()) {
    for (const auto& subject : subjects) report.unmentioned.push_back(subject.name);
    return report;
  }
  for (const auto& citation : conclusion.evidence) {
    for (const ReadCall* call : mentioning) {
      if (call->tool_call_id == citation.tool_call_id) {
        report.result = GuardResult::kPassed;
        return report;
      }
    }
  }
  for (const Subject* subject : mentioned) report.unreached.push_back(subject->name);
  return report;
}

}  // namespace diagd::release
