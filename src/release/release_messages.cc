#include "release/release_messages.h"

#include "tools/tool_registry.h"

namespace diagd::release {
namespace {

bool English(config::Language language) { return language == config::Language::kEn; }

// "日志查询「order-service: timeout (60m)」" / "log query "..."".
std::string Subject(tools::ToolName tool, const std::string& tool_call_id,
                    const std::string& scope_summary, config::Language language) {
  const std::string label = ToolLabel(tool, language);
  if (English(language)) {
    return scope_summary.empty() ? label + " " + tool_call_id
                                 : label + " \"" + scope_summary + "\"";
  }
  return scope_summary.empty() ? label + "（" + tool_call_id + "）"
                               : label + "「" + scope_summary + "」";
}

// 「a」、「b」 / "a", "b"
std::string NameList(const std::vector<std::string>& names, config::Language language) {
  std::string list;
  for (const auto& name : names) {
    if (English(language)) {
      list += (list.empty() ? "\"" : ", \"") + name + "\"";
    } else {
      list += (list.empty() ? "「" : "、「") + name + "」";
    }
  }
  return list;
}

}  // namespace

std::string SubjectsUnmentionedSentence(const std::vector<std::string>& subjects,
                                        config::Language language) {
  const std::string names = NameList(subjects, language);
  return English(language) ? "None of the data checked mentions " + names +
                                 ", which the question asks about, so no conclusion about it "
                                 "is published."
                           : "已检查的数据都没有提到问题所问的" + names +
                                 "，因此没有发布关于它的结论。";
}

std::string SubjectsUnreachedSentence(const std::vector<std::string>& subjects,
                                      config::Language language) {
  const std::string names = NameList(subjects, language);
  return English(language) ? "The evidence the conclusion cites does not concern " + names +
                                 ", which the question asks about, so it is not published."
                           : "结论引用的证据都与问题所问的" + names + "无关，因此没有发布。";
}

std::string SubjectsWhereQuestion(const std::vector<std::string>& subjects,
                                  config::Language language) {
  const std::string names = NameList(subjects, language);
  return English(language) ? "Where is the data of " + names +
                                 " (which log topic, datasource or document), or what is it "
                                 "called there?"
                           : names + "的数据在哪里（哪个日志主题、数据源或文档），或者在数据里叫什么名字？";
}

const std::string& FallbackMessage(FallbackCode code, config::Language language) {
  static const std::string kMissingZh = "信息不足，无法开始排查。请补充下面列出的信息后再问一次。";
  static const std::string kMissingEn =
      "There is not enough context to start investigating. Please supply the information "
      "listed below and ask again.";
  static const std::string kInsufficientZh =
      "已完成的排查没有找到足以支持结论的证据。下面列出了检查过的内容和观察到的事实。";
  static const std::string kInsufficientEn =
      "The checks that ran did not find evidence strong enough to support a conclusion. Below "
      "is what was checked and what was observed.";
  static const std::string kFailedZh = "本次诊断未能完成，没有可以安全展示的结论。请稍后重试。";
  static const std::string kFailedEn =
      "The diagnosis could not be completed and there is no conclusion that can be shown "
      "safely. Please try again later.";
  switch (code) {
    case FallbackCode::kMissingRequiredContext:
      return English(language) ? kMissingEn : kMissingZh;
    case FallbackCode::kInsufficientEvidence:
      return English(language) ? kInsufficientEn : kInsufficientZh;
    case FallbackCode::kFailed:
      break;
  }
  return English(language) ? kFailedEn : kFailedZh;
}

const char* ToolLabel(tools::ToolName tool, config::Language language) {
  const char* label = "";
  tools::RegisteredTools::ForEach([&](auto face) {
    if (decltype(face)::kName == tool) label = decltype(face)::Label(English(language));
  });
  return label;
}

std::string RecordLimitationSentence(harness::LimitationCode code, tools::ToolName tool,
                                     const std::string& tool_call_id,
                                     const std::string& scope_summary, config::Language language) {
  const std::string subject = Subject(tool, tool_call_id, scope_summary, language);
  const bool en = English(language);
  switch (code) {
    case harness::LimitationCode::kToolCallFailed:
      return en ? "The " + subject + " failed; it is not used as a fact."
                : subject + "执行失败，其结果没有作为事实使用。";
    case harness::LimitationCode::kRecordMissing:
      return en ? "The result of the " + subject +
                      " can no longer be read (it may have expired); it is not used as a fact."
                : subject + "的结果已无法读取（可能已过期），没有作为事实使用。";
    case harness::LimitationCode::kRecordForeign:
      return en ? "The record of the " + subject +
                      " does not belong to this diagnosis; it is not used as a fact."
                : subject + "的记录不属于本次诊断，没有作为事实使用。";
    case harness::LimitationCode::kStoreUnavailable:
      break;
  }
  return en ? "The result of the " + subject + " could not be read; it is not used as a fact."
            : subject + "的结果暂时无法读取，没有作为事实使用。";
}

const std::string& ConclusionUnverifiedSentence(config::Language language) {
  static const std::string kZh = "初步结论无法与查询结果逐字核对，因此没有发布。";
  static const std::string kEn =
      "A tentative conclusion could not be verified against the results, so it is not "
      "published.";
  return English(language) ? kEn : kZh;
}

std::string UnpublishedFindingsSentence(std::size_t count, config::Language language) {
  if (English(language)) {
    return std::to_string(count) + (count == 1 ? " finding" : " findings") +
           " could not be checked against this investigation's results and " +
           (count == 1 ? "is" : "are") + " not published.";
  }
  return "有 " + std::to_string(count) + " 条发现无法与本次查询结果核对，没有发布。";
}

std::string CancelledSentence(config::Language language) {
  return English(language)
             ? "The investigation was cancelled before it finished; only what it checked until "
               "then is shown."
             : "本次排查在完成前被取消，只列出了取消前已检查的内容。";
}

std::string FactsCutSentence(std::size_t shown, config::Language language) {
  return English(language)
             ? "Only the first " + std::to_string(shown) + " observed facts are listed."
             : "只列出了前 " + std::to_string(shown) + " 条观察到的事实。";
}

std::string FailureSentence(FailureReason reason, int http_status, config::Language language) {
  const bool en = English(language);
  const std::string status = http_status > 0 ? "HTTP " + std::to_string(http_status) : "";
  switch (reason) {
    case FailureReason::kModelHttpError:
      if (http_status == 429 || http_status >= 500) {
        return en ? "The model service answered with an error (" + status +
                        "), also when asked again."
                  : "模型服务返回错误（" + status + "），重试后仍未成功。";
      }
      if (status.empty()) {
        return en ? "The model service answered with an error." : "模型服务返回了错误。";
      }
      return en ? "The model service refused the request (" + status + ")."
                : "模型服务拒绝了请求（" + status + "）。";
    case FailureReason::kModelUnreachable:
      return en ? "The model service could not be reached (no connection, or no answer in time)."
                : "无法连接模型服务（连接失败或超时未回答）。";
    case FailureReason::kModelBadResponse:
      return en ? "The model service sent something that is not a usable answer."
                : "模型服务返回的内容不是可用的回答。";
    case FailureReason::kModelOutputTruncated:
      return en ? "The model's answer was cut off at its length limit before it said anything "
                  "usable."
                : "模型的回答在达到长度上限时被截断，没有可用的内容。";
    case FailureReason::kModelNoToolSupport:
      return en ? "The model service does not accept tool calls, so nothing could be "
                  "investigated; tool calling must be enabled for this model."
                : "模型服务不接受工具调用，因此无法进行排查；需要为该模型开启工具调用。";
    case FailureReason::kToolBackendError:
      return en ? "The data sources (documents, logs or databases) could not be read, so "
                  "nothing could be checked."
                : "数据源（文档、日志或数据库）无法读取，没有任何内容可以检查。";
    case FailureReason::kRunTimeout:
      return en ? "The investigation ran out of its allowed time." : "本次排查超出了允许的运行时间。";
    case FailureReason::kStoreError:
      return en ? "A store the investigation needs could not be used."
                : "排查所需的存储无法使用。";
    case FailureReason::kInstanceLost:
    case FailureReason::kServerShutdown:
      return en ? "The diagd server stopped before the investigation finished."
                : "diagd 服务在排查完成前停止了。";
    case FailureReason::kInternal:
      break;
  }
  return en ? "diagd hit an internal error." : "diagd 内部出现错误。";
}

}  // namespace diagd::release
