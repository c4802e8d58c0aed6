#include "model/offline/component_answers.h"

#include <algorithm>
#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/causal_guard.h"
#include "model/offline/observation_text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

constexpr std::size_t kMaxKnowledgeDocs = 2;
constexpr std::size_t kMaxKnowledgeExcerpt = 300;

bool HasAny(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](const char* w) { return ContainsFold(text, w); });
}

std::string Route(const char* route) { return json::Serialize(bj::object{{"route", route}}); }

// Query terms: ASCII words of 3+ characters and the CJK bigrams of the text.
std::vector<std::string> Terms(const std::string& text) {
  std::vector<std::string> terms = AsciiWords(text, 3);
  std::vector<std::string> cjk;
  for (std::size_t i = 0; i < text.size();) {
    text::CodePoint cp = text::DecodeCodePoint(text, i);
    if (cp.length == 3) {
      cjk.push_back(text.substr(i, 3));
    } else {
      cjk.push_back({});
    }
    i += cp.length;
  }
  // Question words say nothing about the subject.
  static const char* const kQuestionWords[] = {"是什", "什么", "么意", "意思", "怎么", "如何",
                                               "为什", "么是", "么配", "么做", "是怎", "么回"};
  for (std::size_t i = 0; i + 1 < cjk.size(); ++i) {
    if (cjk[i].empty() || cjk[i + 1].empty()) continue;
    std::string bigram = cjk[i] + cjk[i + 1];
    bool question_word = std::any_of(std::begin(kQuestionWords), std::end(kQuestionWords),
                                     [&](const char* w) { return bigram == w; });
    if (!question_word) terms.push_back(bigram);
  }
  return terms;
}

// Runs of ASCII text of 10+ characters in the question ("HikariPool-1 -
// Connection is not available"): an error text quoted by the user.
std::vector<std::string> AsciiPhrases(const std::string& question) {
  std::vector<std::string> phrases;
  std::string current;
  auto flush = [&] {
    std::string phrase(Trim(current));
    if (phrase.size() >= 10 && phrase.find(' ') != std::string::npos) phrases.push_back(phrase);
    current.clear();
  };
  for (char c : question) {
    if ((c & 0x80) != 0 || c == '?' || c == '"') {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
  return phrases;
}

// The excerpt from the paragraph that holds `at` (its start when npos).
std::string ParagraphFrom(const std::string& excerpt, std::size_t at) {
  if (at == std::string::npos || at >= excerpt.size()) return excerpt;
  std::size_t begin = excerpt.rfind("\n\n", at);
  return excerpt.substr(begin == std::string::npos ? 0 : begin + 2);
}

// Salient words of a root cause: identifiers and numbers-with-letters of 4+
// characters, which a supported conclusion must share with its evidence.
std::vector<std::string> SalientWords(const std::string& text) {
  static const char* const kCommon[] = {
      "with",  "that",    "this",  "from",   "when", "then", "after", "there", "which", "rows",
      "calls", "calling", "error", "errors", "many", "logs", "query", "the",   "high",  "medium"};
  std::vector<std::string> words;
  for (const auto& word : AsciiWords(text, 4)) {
    std::string lower = text::AsciiLower(word);
    bool common = std::any_of(std::begin(kCommon), std::end(kCommon),
                              [&](const char* c) { return lower == c; });
    if (!common) words.push_back(word);
  }
  return words;
}

}  // namespace

std::string RouteAnswer(const std::string& raw) {
  std::string question(Trim(raw));
  bool short_text = text::CodePointCount(question) <= 24;
  if (short_text && HasAny(question, {"你好", "您好", "hello", "hi ", "hey", "嗨", "在吗"})) {
    return Route("SYSTEM_CHAT");
  }
  if (HasAny(question, {"你是谁", "你能做什么", "能做什么", "你会什么", "怎么用你", "介绍一下你",
                        "what can you do", "who are you", "what are you", "help me use"})) {
    return Route("SYSTEM_CHAT");
  }
  if (text::AsciiLower(question) == "hi" || text::AsciiLower(question) == "help" ||
      question == "帮助") {
    return Route("SYSTEM_CHAT");
  }
  if (HasAny(question,
             {"为什么", "为啥", "怎么回事", "什么原因", "原因是", "根因", "排查", "帮我查", "why",
              "what happened", "root cause", "the cause", "what caused", "causing", "what's wrong",
              "what is wrong"})) {
    return Route("DIAGNOSIS");
  }
  if (HasAny(question,
             {"是什么",   "什么是", "什么意思", "含义",    "怎么配置", "如何配置",  "怎么设置",
              "如何",     "怎么做", "怎么处理", "流程",    "规范",     "what is",   "what does",
              "how do i", "how to", "how does", "explain", "where is", "meaning of",
              // a configured value asked for: 连接池最大连接数配置的是多少
              "是多少", "配置的是", "默认值", "what value", "what is the value", "how many",
              "how much"})) {
    return Route("KNOWLEDGE");
  }
  return Route("DIAGNOSIS");
}

std::string SystemChatAnswer(const std::string&, Lang lang) {
  if (lang == Lang::kEn) {
    return "Hello! This is diagd in its offline rule-based mode (not an LLM). diagd is a "
           "self-hosted diagnosis assistant for SRE teams: ask why something is failing and it "
           "searches the runbooks, queries the logs and reads the business database (read-only), "
           "follows the errors from service to service, and answers with a root cause whose every "
           "fact quotes what the tools returned, or says plainly what it checked and what is "
           "missing. You can also ask what an error means or how a procedure goes, answered from "
           "the documents. In offline mode the investigation follows fixed rules, so name the "
           "service, the symptom and the time, e.g. \"Why has order-service returned many 500s "
           "since about 10:00?\"";
  }
  return "你好！这里是 diagd 的离线规则模式（不是大模型）。diagd 是面向 SRE "
         "团队的自托管故障诊断助手："
         "你问“为什么出故障”，它会检索 Runbook "
         "与文档、查询日志、只读查询业务数据库，顺着报错从一个服务追到"
         "下一个服务，给出根因，并且每条事实都引用工具返回的原文；证据不够时，会如实说明查了什么、"
         "还缺什么。"
         "也可以问文档里的知识，比如某个报错是什么意思、回滚流程怎么走。离线模式按固定规则调查，请"
         "写清服务、"
         "现象和时间，例如：“订单服务从 10 点左右开始大量 500，为什么？”";
}

namespace {

// A document of a knowledge question, with how well it answers it.
struct ScoredDocument {
  const bj::object* doc;
  int score;
  std::size_t at;  // where in the excerpt the best match is
};

// The documents that match the question at all, in the order given; those
// written as instructions to an AI assistant are left out and noted.
std::vector<ScoredDocument> ScoreDocuments(const bj::object& request,
                                           bool& skipped_instructions) {
  std::vector<ScoredDocument> scored;
  std::string question(json::GetString(request, "question").value_or(""));
  auto terms = Terms(question);
  auto phrases = AsciiPhrases(question);
  const auto* docs = request.if_contains("documents");
  if (docs == nullptr || !docs->is_array()) return scored;
  for (const auto& item : docs->as_array()) {
    if (!item.is_object()) continue;
    const auto& doc = item.as_object();
    std::string excerpt(json::GetString(doc, "excerpt").value_or(""));
    std::string body = std::string(json::GetString(doc, "title").value_or("")) + "\n" +
                       std::string(json::GetString(doc, "breadcrumb").value_or("")) + "\n" +
                       excerpt;
    if (IsInstructionLike(body)) {
      skipped_instructions = true;
      continue;
    }
    ScoredDocument entry{&doc, 0, std::string::npos};
    // The question's own wording (an error text) counts most.
    for (const auto& phrase : phrases) {
      std::size_t at = excerpt.find(phrase);
      if (at == std::string::npos) continue;
      entry.score += 5;
      entry.at = std::min(entry.at, at);
    }
    for (const auto& term : terms) {
      if (!ContainsFold(body, term)) continue;
      entry.score += 1;
      std::size_t at = excerpt.find(term);
      if (entry.at == std::string::npos && at != std::string::npos) entry.at = at;
    }
    if (entry.score > 0 && json::GetString(doc, "document_id")) scored.push_back(entry);
  }
  return scored;
}

}  // namespace

std::string KnowledgeAnswer(const std::string& user_message, Lang lang) {
  bool en = lang == Lang::kEn;
  auto parsed = json::Parse(user_message);
  std::vector<ScoredDocument> scored;
  bool skipped_instructions = false;
  if (parsed && parsed->is_object()) {
    scored = ScoreDocuments(parsed->as_object(), skipped_instructions);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const ScoredDocument& a, const ScoredDocument& b) {
                     return a.score > b.score;
                   });
  std::string text;
  bj::array citations;
  for (std::size_t i = 0; i < scored.size() && i < kMaxKnowledgeDocs; ++i) {
    const bj::object& doc = *scored[i].doc;
    std::string title(json::GetString(doc, "title").value_or(""));
    std::string breadcrumb(json::GetString(doc, "breadcrumb").value_or(""));
    std::string excerpt(json::GetString(doc, "excerpt").value_or(""));
    std::string passage = CutPrefix(text::CollapseWhitespace(ParagraphFrom(excerpt, scored[i].at)),
                                    kMaxKnowledgeExcerpt);
    std::string where = breadcrumb.empty() ? title : breadcrumb;
    text += (en ? "- " + where + ": " : "- 《" + where + "》：") + passage + "…\n";
    citations.emplace_back(std::string(*json::GetString(doc, "document_id")));
  }
  if (text.empty()) {
    text = en ? "The documents hold nothing that answers this question directly."
              : "文档中没有找到能直接回答这个问题的内容。";
  } else {
    text = (en ? "From the documents (passages quoted as written, chosen by the offline rule-based "
                 "mode, not summarized by an LLM):\n"
               : "根据文档（以下为原文摘录，由离线规则模式挑选，不是大模型的归纳）：\n") +
           text;
  }
  if (skipped_instructions) {
    text += en ? "\n(A document written as instructions to an AI assistant was ignored.)"
               : "\n（有一篇文档含有写给 AI 助手的指令性文字，已忽略。）";
  }
  return json::Serialize(bj::object{{"text", text}, {"citations", std::move(citations)}});
}

std::string SemanticGuardAnswer(const std::string& user_message) {
  auto unsupported = [](const std::string& reason) {
    return json::Serialize(bj::object{{"verdict", "UNSUPPORTED"}, {"reason", reason}});
  };
  auto parsed = json::Parse(user_message);
  if (!parsed || !parsed->is_object()) return unsupported("the request is not a JSON object");
  const auto& request = parsed->as_object();
  const auto* conclusion = request.if_contains("conclusion");
  const auto* evidence = request.if_contains("evidence");
  if (conclusion == nullptr || !conclusion->is_object() || evidence == nullptr ||
      !evidence->is_array() || evidence->as_array().empty()) {
    return unsupported("no conclusion or no evidence");
  }
  std::string root_cause(json::GetString(conclusion->as_object(), "root_cause").value_or(""));
  std::vector<std::string> evidence_texts;
  for (const auto& item : evidence->as_array()) {
    if (!item.is_object()) return unsupported("an evidence item is not an object");
    const auto& o = item.as_object();
    std::string id(json::GetString(o, "tool_call_id").value_or(""));
    std::string quote(json::GetString(o, "quote").value_or(""));
    const auto* observation = o.if_contains("observation");
    if (observation == nullptr || !observation->is_object())
      return unsupported("no observation for " + id);
    auto texts = QuotableTexts(json::Serialize(*observation));
    auto holder = std::find_if(texts.begin(), texts.end(), [&](const QuotableText& t) {
      return text::CodePointCount(quote) >= 4 && t.text.find(quote) != std::string::npos;
    });
    if (holder == texts.end())
      return unsupported("the quote of " + id + " is not in its observation");
    if (holder->instruction_like) {
      return unsupported("the quote of " + id +
                         " comes from text written as instructions to an AI");
    }
    evidence_texts.push_back(quote);
    for (const auto& t : texts) evidence_texts.push_back(t.text);
  }
  if (auto objection = CausalObjection(evidence->as_array())) return unsupported(*objection);
  auto shown = [&](const std::string& word) {
    return std::any_of(evidence_texts.begin(), evidence_texts.end(),
                       [&](const std::string& t) { return ContainsFold(t, word); });
  };
  for (const auto& word : SalientWords(root_cause)) {
    if (shown(word)) return json::Serialize(bj::object{{"verdict", "SUPPORTED"}});
  }
  // Chinese: four characters in a row that the evidence also holds.
  auto terms = Terms(root_cause);
  for (std::size_t i = 0; i + 2 < terms.size(); ++i) {
    const std::string& a = terms[i];
    const std::string& b = terms[i + 2];
    if (a.size() == 6 && b.size() == 6 && root_cause.find(a + b) != std::string::npos &&
        shown(a + b)) {
      return json::Serialize(bj::object{{"verdict", "SUPPORTED"}});
    }
  }
  return unsupported("the root cause names nothing the cited evidence shows");
}

}  // namespace diagd::model::offline
