#include "model/offline/question_analysis.h"

#include <algorithm>
#include <string_view>

#include "core/text.h"
#include "model/offline/question_scanners.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// Words that name a part of a shop-like system, and the stems its log
// topics are named with. `needs_suffix`: the word alone usually means
// something else (用户 = end users), so it names a service only when followed
// by 服务/中心/系统/service.
struct Vocabulary {
  std::vector<std::string_view> words;
  std::vector<std::string_view> stems;
  bool needs_suffix = false;
};

const std::vector<Vocabulary>& ServiceVocabulary() {
  static const std::vector<Vocabulary> kVocabulary = {
      {{"订单", "下单", "order"}, {"order"}},
      {{"支付", "付款", "payment", "pay"}, {"payment", "pay"}},
      {{"网关", "gateway", "nginx", "ingress"}, {"gateway", "nginx", "ingress"}},
      {{"库存", "inventory", "stock"}, {"inventory", "stock"}},
      {{"用户", "user"}, {"user"}, true},
      {{"数据库", "database", "mysql"}, {"db", "mysql", "database"}},
      {{"商品", "catalog", "product"}, {"catalog", "product"}},
      {{"购物车", "cart"}, {"cart"}},
      {{"缓存", "redis", "cache"}, {"redis", "cache"}},
      {{"kafka", "消息队列"}, {"kafka", "mq"}},
      {{"搜索", "search"}, {"search"}},
      {{"登录", "认证", "auth", "login"}, {"auth", "login"}},
      {{"风控", "risk"}, {"risk"}},
      {{"结算", "checkout"}, {"checkout"}},
      {{"物流", "shipping"}, {"shipping", "logistics"}},
      {{"通知", "notification"}, {"notification", "notify"}},
  };
  return kVocabulary;
}

struct SymptomWord {
  std::string_view word;
  bool slowness = false;
  bool vague = false;    // says that it fails, not how (Symptom::vague)
  bool generic = false;  // any error shows it (Symptom::generic)
};

const std::vector<SymptomWord>& SymptomVocabulary() {
  static const std::vector<SymptomWord> kWords = {
      {"超时"},
      {"timeout"},
      {"timed out"},
      {"报错", false, false, true},
      {"错误", false, false, true},
      {"异常", false, false, true},
      {"失败", false, false, true},
      {"error", false, false, true},
      {"exception", false, false, true},
      {"fail", false, false, true},
      // "we can't send notifications": it fails, as 失败 says.
      {"无法", false, false, true},
      {"can't", false, false, true},
      {"cannot", false, false, true},
      {"unable to", false, false, true},
      {"慢查询", true},
      {"slow query", true},
      {"慢", true},
      {"延迟", true},
      {"卡顿", true},
      {"latency", true},
      {"slow", true},
      {"OOM"},
      {"OutOfMemory"},
      {"内存溢出"},
      {"内存"},
      {"Full GC"},
      {"GC"},
      {"连接池"},
      {"connection pool"},
      {"死锁"},
      {"deadlock"},
      {"证书"},
      {"certificate"},
      {"重启"},
      {"restart"},
      {"crash", false, true},
      {"崩溃", false, true},
      {"挂了", false, true},
      {"宕机", false, true},
      {"不可用", false, true},
      {"unavailable", false, true},
      {"积压"},
      {"lag"},
      {"限流"},
      {"throttl"},
      {"太频繁"},
      {"过于频繁"},
      {"too many requests"},
      {"rate limit"},
      {"5xx"},
  };
  return kWords;
}

constexpr std::size_t kMaxQuestionBytes = 4096;
// Service words past this many are a list, not a question; the matching
// compares every one kept with every other.
constexpr std::size_t kMaxServiceWords = 64;

constexpr std::string_view kSuffixes[] = {"服务",     "中心",     "系统",    "模块",
                                          "-service", " service", "service", "_service"};
constexpr std::string_view kInfraMarks[] = {
    "db", "mysql",  "redis", "postgres",      "mongo",     "cache", "kafka",
    "mq", "rabbit", "es",    "elasticsearch", "zookeeper", "etcd",  "memcached",
    "agent", "kubelet", "dns", "coredns"};

bool IsAsciiWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::vector<std::string> TopicTokens(const std::string& topic) {
  std::vector<std::string> tokens;
  std::string current;
  for (char c : text::AsciiLower(topic)) {
    if (c == '-' || c == '_' || c == '.') {
      if (!current.empty()) tokens.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

bool TopicHasStem(const std::string& topic, std::string_view stem) {
  for (const auto& token : TopicTokens(topic)) {
    if (token == stem || token == std::string(stem) + "s") return true;
  }
  return false;
}

// Every occurrence of `word` in `text` (ASCII words only at word boundaries),
// as byte offsets.
std::vector<std::size_t> Occurrences(const std::string& folded, std::string_view word) {
  std::string needle = text::CaseFold(word);
  bool ascii = std::all_of(needle.begin(), needle.end(), [](char c) { return (c & 0x80) == 0; });
  std::vector<std::size_t> found;
  for (std::size_t at = folded.find(needle); at != std::string::npos;
       at = folded.find(needle, at + 1)) {
    if (ascii) {
      bool left = at == 0 || !IsAsciiWordChar(folded[at - 1]);
      std::size_t end = at + needle.size();
      // "fail" also finds "failed", "failing": only the left edge is a boundary
      // for words that inflect; names need both.
      bool right = end == folded.size() || !IsAsciiWordChar(folded[end]) || needle == "fail" ||
                   needle == "error" || needle == "throttl" || needle == "restart" ||
                   needle == "crash" || needle == "order" || needle == "timeout";
      if (!left || !right) continue;
    }
    found.push_back(at);
  }
  return found;
}

bool FollowedBySuffix(const std::string& folded, std::size_t end) {
  std::string_view rest = std::string_view(folded).substr(end);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  for (auto suffix : kSuffixes) {
    std::string_view trimmed = suffix.front() == ' ' ? suffix.substr(1) : suffix;
    if (rest.substr(0, trimmed.size()) == trimmed) return true;
  }
  return false;
}

bool FollowedByDatabase(const std::string& folded, std::size_t end) {
  std::string_view rest = std::string_view(folded).substr(end);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '-')) rest.remove_prefix(1);
  return rest.substr(0, 3) == "库" || rest.substr(0, 9) == "数据库" || rest.substr(0, 2) == "db";
}

void AddUnique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// A count as written: digits saturate at a million (a longer lookback means
// "everything" to the logs tool, which caps it), so no product overflows.
int ParseCount(std::string_view digits) {
  constexpr int kMaxCount = 1'000'000;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    n = std::min(kMaxCount, n * 10 + (c - '0'));
  }
  return n;
}

int ChineseNumber(std::string_view s) {
  if (s == "一" || s == "1") return 1;
  if (s == "两" || s == "二") return 2;
  if (s == "三") return 3;
  if (s == "半") return 0;
  return ParseCount(s);
}

int EnglishNumber(std::string_view s) {
  std::string count = text::AsciiLower(s);
  if (count == "an" || count == "a" || count == "one") return 1;
  if (count == "two") return 2;
  return ParseCount(count);
}

void ReadLookback(std::string_view text, QuestionAnalysis& analysis) {
  if (auto zh = FindChineseLookback(text)) {
    int n = zh->count.empty() ? 1 : ChineseNumber(zh->count);
    if (zh->unit == TimeUnit::kMinute) analysis.lookback_minutes = std::max(n, 1);
    if (zh->unit == TimeUnit::kHour) analysis.lookback_minutes = n == 0 ? 30 : n * 60;
    if (zh->unit == TimeUnit::kDay) analysis.lookback_minutes = std::max(n, 1) * 1440;
  } else if (auto en = FindEnglishLookback(text)) {
    int n = std::max(en->count.empty() ? 1 : EnglishNumber(en->count), 1);
    if (en->unit == TimeUnit::kMinute) analysis.lookback_minutes = n;
    if (en->unit == TimeUnit::kHour) analysis.lookback_minutes = n * 60;
    if (en->unit == TimeUnit::kDay) analysis.lookback_minutes = n * 1440;
  }
}

// The minute written after an hour: "10:02", "18 点 6 分", "8点18分".
std::optional<int> MinuteAfter(std::string_view text, std::string_view hour_digits) {
  std::size_t at = static_cast<std::size_t>(hour_digits.data() - text.data()) + hour_digits.size();
  std::string_view rest = text.substr(std::min(at, text.size()));
  bool chinese = false;
  if (rest.starts_with(":")) {
    rest.remove_prefix(1);
  } else {
    rest = Trim(rest);
    if (!rest.starts_with("点")) return std::nullopt;
    rest = Trim(rest.substr(std::string_view("点").size()));
    chinese = true;
  }
  std::size_t digits = 0;
  while (digits < rest.size() && digits < 2 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  int minute = ParseCount(rest.substr(0, digits));
  if (chinese && !Trim(rest.substr(digits)).starts_with("分")) return std::nullopt;
  return minute <= 59 ? std::optional<int>(minute) : std::nullopt;
}

void ReadTime(std::string_view text, QuestionAnalysis& analysis) {
  ReadLookback(text, analysis);
  // "10 点" or "10:02" first; "around 10 pm" only when neither is written.
  std::optional<std::string_view> hour_digits = FindChineseHour(text);
  if (!hour_digits) hour_digits = FindClockHour(text);
  if (hour_digits) {
    int hour = ParseCount(*hour_digits);
    // "晚上 8 点" is 20:00 on the logs' clock.
    std::string_view before = text.substr(0, static_cast<std::size_t>(hour_digits->data() - text.data()));
    for (std::string_view evening : {"晚上", "下午", "傍晚", "夜里", "夜间"}) {
      if (hour < 12 && before.find(evening) != std::string_view::npos) hour += 12;
    }
    if (hour <= 23) analysis.clock_hour = hour;
    if (hour <= 23) analysis.clock_minute = MinuteAfter(text, *hour_digits);
  } else if (auto en = FindEnglishHour(text)) {
    int hour = ParseCount(en->hour);
    if (text::AsciiLower(en->suffix) == "pm" && hour < 12) hour += 12;
    if (hour <= 23) analysis.clock_hour = hour;
  }
  if (auto past_day = FindPastDayWord(text)) analysis.past_day_text = std::string(*past_day);
  if (auto date = FindChineseDate(text)) {
    bool alone = analysis.past_day_text.empty();
    analysis.past_day_text += (alone ? "" : "（") + std::string(*date) + (alone ? "" : "）");
  }
}

void ReadSymptoms(std::string_view text, const std::string& folded, QuestionAnalysis& analysis) {
  for (std::string_view code : FindServerErrorCodes(text)) {
    std::string word(code);
    bool seen = std::any_of(analysis.symptoms.begin(), analysis.symptoms.end(),
                            [&](const Symptom& s) { return s.word == word; });
    if (!seen) analysis.symptoms.push_back({word, false});
  }
  for (const auto& entry : SymptomVocabulary()) {
    auto at = Occurrences(folded, entry.word);
    if (at.empty()) continue;
    // Quote the word as the user wrote it when it is ASCII (case may differ).
    std::string word(entry.word);
    bool covered = std::any_of(analysis.symptoms.begin(), analysis.symptoms.end(),
                               [&](const Symptom& s) { return ContainsFold(s.word, word); });
    if (!covered) analysis.symptoms.push_back({word, entry.slowness, entry.vague, entry.generic});
  }
}

}  // namespace

bool IsInfraTopic(const std::string& topic) {
  for (const auto& token : TopicTokens(topic)) {
    for (auto mark : kInfraMarks) {
      if (token == mark) return true;
    }
  }
  return false;
}

bool IsServiceName(const std::string& name) {
  std::string lower = text::AsciiLower(name);
  // "service" as a word of the name (order-service, service-b), not
  // "services" (prod-services: a stream of many).
  for (std::size_t at = lower.find("service"); at != std::string::npos;
       at = lower.find("service", at + 1)) {
    std::size_t end = at + 7;
    if (end == lower.size() || lower[end] == '-' || lower[end] == '_') return true;
  }
  return lower.ends_with("-db") || lower.ends_with("-api") || lower.ends_with("-server") ||
         lower.ends_with("-worker") || lower.ends_with("-svc");
}

std::string TopicStem(const std::string& topic) {
  auto tokens = TopicTokens(topic);
  return tokens.empty() ? topic : tokens.front();
}

// The question's own spelling of [at, end), an extent found in `folded`.
// Case folding can change byte lengths (ŉ, 2 bytes, folds to ʼn, 3), and
// then offsets into `folded` do not fit `text` (a character cut in two, or
// past its end): the folded spelling is used instead.
std::string Written(const std::string& text, const std::string& folded, std::size_t at,
                    std::size_t end) {
  if (text.size() == folded.size()) {
    std::string_view own = std::string_view(text).substr(at, end - at);
    if (text::IsValidUtf8(own)) return std::string(own);
  }
  return folded.substr(at, end - at);
}

namespace {

// A service word of the question, with the topics it points at.
struct ServiceHit {
  std::size_t at;
  std::vector<std::string> topics;
  std::string word;
  // A word for what the system does (登录, 支付) with no topic of its
  // name: not a service the data lacks; it is served somewhere.
  bool function_only = false;
  // A name that is no service ("order-events", a consumer group): it
  // points at no topic, and the service words inside it ("order") are
  // part of it, not services the question names.
  bool other_name = false;
  // The stems of a vocabulary word (库存 -> inventory); none for a name.
  std::vector<std::string_view> stems;
};

// Explicit names: a configured topic, or something shaped like a service.
// Without a topic list nothing can be called unknown.
void AddNameHits(const std::string& folded, const std::vector<std::string>& topics,
                 std::vector<ServiceHit>& hits) {
  for (std::string_view token : FindNameTokens(folded)) {
    std::string name(token);
    auto at = static_cast<std::size_t>(token.data() - folded.data());
    auto topic = std::find_if(topics.begin(), topics.end(),
                              [&](const std::string& t) { return text::AsciiLower(t) == name; });
    if (topic != topics.end()) {
      hits.push_back({at, {*topic}, name});
    } else if (name.find('-') != std::string::npos || name.find('_') != std::string::npos) {
      // No topic list: the backend accepts any plain name, so try it.
      if (IsServiceName(name)) {
        hits.push_back(
            {at, topics.empty() ? std::vector<std::string>{name} : std::vector<std::string>{},
             name});
      } else {
        hits.push_back({at, {}, name, false, true});
      }
    }
  }
}

// The vocabulary word at [at, end) as written, with the suffix that follows
// it ("订单服务"), as written where folding kept the lengths (the offsets fit).
std::string WrittenWithSuffix(const std::string& text, const std::string& folded, std::size_t at,
                              std::size_t end) {
  std::string written = Written(text, folded, at, end);
  if (!FollowedBySuffix(folded, end)) return written;
  const std::string& spelled = text.size() == folded.size() ? text : folded;
  std::string_view rest = std::string_view(spelled).substr(end);
  for (auto suffix : kSuffixes) {
    if (rest.substr(0, suffix.size()) == suffix) {
      written += std::string(suffix);
      break;
    }
  }
  return written;
}

// Words of the service vocabulary, each pointing at the topics of its stems:
// infrastructure topics when a database word follows, applications otherwise.
void AddVocabularyHits(const std::string& text, const std::string& folded,
                       const std::vector<std::string>& topics, std::vector<ServiceHit>& hits) {
  for (const auto& entry : ServiceVocabulary()) {
    for (auto word : entry.words) {
      for (std::size_t at : Occurrences(folded, word)) {
        std::size_t end = at + text::CaseFold(word).size();
        if (entry.needs_suffix && !FollowedBySuffix(folded, end)) continue;
        // Inside an explicit name already taken ("payment" in "payment-service").
        bool inside = std::any_of(hits.begin(), hits.end(), [&](const ServiceHit& h) {
          return at >= h.at && at < h.at + h.word.size() && h.word.size() > word.size();
        });
        if (inside) continue;
        std::vector<std::string> apps, infra;
        for (const auto& topic : topics) {
          bool match = std::any_of(entry.stems.begin(), entry.stems.end(),
                                   [&](auto stem) { return TopicHasStem(topic, stem); });
          if (match) (IsInfraTopic(topic) ? infra : apps).push_back(topic);
        }
        bool database = FollowedByDatabase(folded, end) || entry.stems.front() == "db";
        std::vector<std::string> chosen = database ? infra : apps;
        if (chosen.empty()) chosen = database ? apps : infra;
        bool function_only = chosen.empty() && !FollowedBySuffix(folded, end);
        hits.push_back({at, chosen, WrittenWithSuffix(text, folded, at, end), function_only,
                        false, entry.stems});
      }
    }
  }
}

// The hits that name a service, in the order of the question, at most
// kMaxServiceWords.
void KeepServiceHits(std::vector<ServiceHit>& hits) {
  // "库存服务（inventory-service）": the name written beats the word for the
  // same thing, whose stem may fit another topic (cert-inventory).
  std::erase_if(hits, [&](const ServiceHit& hit) {
    return std::any_of(hit.stems.begin(), hit.stems.end(), [&](std::string_view stem) {
      return std::any_of(hits.begin(), hits.end(), [&](const ServiceHit& name) {
        return name.stems.empty() && !name.other_name && TopicHasStem(name.word, stem);
      });
    });
  });
  std::erase_if(hits, [](const ServiceHit& hit) { return hit.other_name; });
  std::stable_sort(hits.begin(), hits.end(),
                   [](const ServiceHit& a, const ServiceHit& b) { return a.at < b.at; });
  if (hits.size() > kMaxServiceWords) hits.resize(kMaxServiceWords);
}

// The analysis' service words, topics, and the services no topic serves.
void ReadServices(const std::vector<ServiceHit>& hits, bool topics_known,
                  QuestionAnalysis& analysis) {
  for (const auto& hit : hits) {
    AddUnique(analysis.service_words, hit.word);
    if (hit.topics.empty() && topics_known && !hit.function_only) {
      bool named_elsewhere = std::any_of(hits.begin(), hits.end(), [&](const ServiceHit& other) {
        return !other.topics.empty() && ContainsFold(other.word, hit.word);
      });
      if (!named_elsewhere) AddUnique(analysis.unknown_services, hit.word);
    }
    for (const auto& topic : hit.topics) AddUnique(analysis.topics, topic);
  }
  // "user-service" and the word "user" inside it are one unknown service.
  std::vector<std::string> unknown;
  for (const auto& name : analysis.unknown_services) {
    bool part_of_other = std::any_of(
        analysis.unknown_services.begin(), analysis.unknown_services.end(),
        [&](const std::string& other) { return other != name && ContainsFold(other, name); });
    if (!part_of_other) unknown.push_back(name);
  }
  analysis.unknown_services = std::move(unknown);
}

}  // namespace

QuestionAnalysis AnalyzeQuestion(const std::string& raw, const std::vector<std::string>& topics) {
  QuestionAnalysis analysis;
  // Questions are short; the cap bounds the matching below.
  std::string text = text::Nfc(text::TruncateBytes(raw, kMaxQuestionBytes));
  std::string folded = text::CaseFold(text);
  analysis.things = Identifiers(text);

  // Service words in order of appearance, with the topics they point at.
  std::vector<ServiceHit> hits;
  AddNameHits(folded, topics, hits);
  AddVocabularyHits(text, folded, topics, hits);
  KeepServiceHits(hits);
  ReadServices(hits, !topics.empty(), analysis);

  // Time words and status codes are read with white space collapsed (an
  // ideographic space counts as one), over the whole question: the scanners
  // are linear and need no cap of their own.
  std::string spaced = text::CollapseWhitespace(text);
  ReadSymptoms(spaced, folded, analysis);
  ReadTime(spaced, analysis);
  return analysis;
}

}  // namespace diagd::model::offline
