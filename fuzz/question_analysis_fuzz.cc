// model::offline::AnalyzeQuestion: the user's question, read by the offline
// provider, once against a list of log topics and once with none.
//
// Checks: topics come from the list given (without one: are names the
// question wrote, for the backend to try); every quoted word is valid UTF-8
// (the question was, after NFC); a lookback is positive and an hour of the
// day is 0..23. The analysis runs on a thread with a run's stack, 512 KiB
// (runtime/fiber.h), so that deep recursion overflows here as it would in
// diagd serve (libstdc++'s std::regex recurses once per character).
#include <pthread.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/fuzz_check.h"
#include "model/offline/question_analysis.h"

namespace {

namespace offline = diagd::model::offline;

void Check(const offline::QuestionAnalysis& analysis, const std::vector<std::string>& topics,
           const std::string& question) {
  std::string folded = diagd::text::CaseFold(question);
  for (const std::string& topic : analysis.topics) {
    if (topics.empty()) {
      FUZZ_CHECK(!topic.empty() && folded.find(topic) != std::string::npos);
    } else {
      FUZZ_CHECK(std::find(topics.begin(), topics.end(), topic) != topics.end());
    }
  }
  if (topics.empty()) FUZZ_CHECK(analysis.unknown_services.empty());
  for (const auto* words : {&analysis.unknown_services, &analysis.service_words}) {
    for (const std::string& word : *words) FUZZ_CHECK(diagd::text::IsValidUtf8(word));
  }
  for (const offline::Symptom& symptom : analysis.symptoms) {
    FUZZ_CHECK(!symptom.word.empty() && diagd::text::IsValidUtf8(symptom.word));
  }
  FUZZ_CHECK(diagd::text::IsValidUtf8(analysis.past_day_text));
  if (analysis.lookback_minutes) FUZZ_CHECK(*analysis.lookback_minutes > 0);
  if (analysis.clock_hour) FUZZ_CHECK(*analysis.clock_hour >= 0 && *analysis.clock_hour <= 23);
}

constexpr std::size_t kRunStackBytes = 512 * 1024;

void* AnalyzeBoth(void* question_pointer) {
  static const std::vector<std::string> kTopics = {
      "order-service", "payment-service", "payment-db", "gateway", "inventory", "redis-cache"};
  static const std::vector<std::string> kNoTopics;
  const std::string& question = *static_cast<const std::string*>(question_pointer);
  Check(offline::AnalyzeQuestion(question, kTopics), kTopics, question);
  Check(offline::AnalyzeQuestion(question, kNoTopics), kNoTopics, question);
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string question(diagd::fuzz::Bytes(data, size));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kRunStackBytes);
  pthread_t thread;
  FUZZ_CHECK(pthread_create(&thread, &attributes, AnalyzeBoth, &question) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  return 0;
}
