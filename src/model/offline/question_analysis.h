// What a question gives an investigation: the services it names (matched
// against the configured log topics), the symptoms, and the time it points
// at. Chinese and English. Rules, not understanding: the vocabulary is a
// fixed table (question_analysis.cc), and anything outside it is "not named".
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace diagd::model::offline {

struct Symptom {
  std::string word;  // as written in the question: "500", "超时", "Full GC"
  bool slowness = false;
  // "挂了", "宕机", "unavailable", "crash": that something fails, not how.
  // With no service named it is nowhere to start from ("为什么又挂了？").
  bool vague = false;
  // "报错", "失败", "error": any error message shows it, whatever fails.
  bool generic = false;
};

struct QuestionAnalysis {
  // Log topics the question points at, most specific first.
  std::vector<std::string> topics;
  // Services the question names that no topic serves ("user-service", "用户服务").
  std::vector<std::string> unknown_services;
  // The words naming services, as written ("订单服务", "payment-service").
  std::vector<std::string> service_words;
  // Hosts, addresses and paths the question names ("calls to
  // api.unionbank.example.com fail"): what the logs are searched for when
  // it names no service.
  std::vector<std::string> things;
  std::vector<Symptom> symptoms;
  // "最近 30 分钟", "last 2 hours": the lookback asked for.
  std::optional<int> lookback_minutes;
  // "10 点左右", "10:02": an hour of the day (as the logs' clock reads it).
  std::optional<int> clock_hour;
  std::optional<int> clock_minute;  // "10:02", "18 点 6 分" (with clock_hour)
  // "昨天", "11 月 28 日", "yesterday": a day the question places the failure on
  // that is not "now"; `past_day_text` quotes it.
  std::string past_day_text;

  bool HasService() const { return !topics.empty() || !unknown_services.empty(); }
  bool HasSymptom() const { return !symptoms.empty(); }
  // A symptom that says how it fails (a status, a timeout, an error text).
  bool HasConcreteSymptom() const {
    for (const auto& symptom : symptoms) {
      if (!symptom.vague) return true;
    }
    return false;
  }
  // A symptom that not every error shows: a status, a timeout, slowness.
  bool HasSpecificSymptom() const {
    for (const auto& symptom : symptoms) {
      if (!symptom.vague && !symptom.generic) return true;
    }
    return false;
  }
};

// `text`: the question (with earlier user turns before it, for follow-ups).
// `topics`: the configured log topics (empty when unknown).
QuestionAnalysis AnalyzeQuestion(const std::string& text, const std::vector<std::string>& topics);

// Whether a topic names infrastructure (a database, cache, queue) rather
// than an application: such topics log their trouble as warnings.
bool IsInfraTopic(const std::string& topic);
// Shaped like one service's name: order-service, payment-db, billing-worker.
bool IsServiceName(const std::string& name);

// The name stem of a topic ("payment" for "payment-service" and "payment-db").
std::string TopicStem(const std::string& topic);

}  // namespace diagd::model::offline
