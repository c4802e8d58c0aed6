// docs/model-endpoints.md end to end through the diagd binary: each way a real
// endpoint fails (bodies from the recorded shapes, model/endpoint_shapes.h,
// played by the scripted model server; it is no model) ends the run FAILED
// with its failure_reason and the provider's words as failure_detail in the
// stored record, the reason and detail on stderr, and one plain sentence in
// the FAILED fallback's limitations; and the key never shows.
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e/cli_fixture.h"
#include "model/endpoint_shapes.h"
#include "testing/scripted_diagnosis.h"

namespace diagd {
namespace {

using namespace e2e;  // NOLINT: the fixture's names
using testing::ScriptedRawAnswer;
using testing::ScriptedReply;
namespace shapes = model::shapes;

constexpr char kKey[] = "sk-e2e-7d41c9a05b3e48f2a6";

struct FailureCase {
  const char* name;
  std::vector<ScriptedReply> replies;  // what the endpoint answers, in order
  const char* reason;
  const char* detail_has;      // the provider's words, or the status
  const char* limitation_has;  // the plain sentence, in Chinese (the default language)
};

ScriptedReply Raw(int status, const char* body, const char* type = "application/json") {
  return {ScriptedRawAnswer{status, type, body}, std::chrono::milliseconds(0)};
}

std::vector<ScriptedReply> Times(int n, const ScriptedReply& reply) {
  return std::vector<ScriptedReply>(static_cast<std::size_t>(n), reply);
}

std::vector<FailureCase> Cases() {
  return {
      {"VllmWithoutToolParser", {Raw(400, shapes::kVllmAutoToolChoiceRefused)},
       "MODEL_NO_TOOL_SUPPORT", "--enable-auto-tool-choice", "不接受工具调用"},
      {"LlamaCppWithoutJinja", {Raw(500, shapes::kLlamaCppNeedsJinja500)},
       "MODEL_NO_TOOL_SUPPORT", "requires --jinja", "不接受工具调用"},
      {"OllamaModelWithoutTools", {Raw(400, shapes::kOllamaDoesNotSupportTools)},
       "MODEL_NO_TOOL_SUPPORT", "does not support tools", "不接受工具调用"},
      {"LmStudioBareStringError", {Raw(400, shapes::kLmStudioBareStringError)},
       "MODEL_HTTP_ERROR", "must be 'json_schema' or 'text'", "HTTP 400"},
      {"LlamaCppContextExceeded", {Raw(400, shapes::kLlamaCppContextExceeded)},
       "MODEL_HTTP_ERROR", "exceeds the available context size", "拒绝了请求（HTTP 400）"},
      {"InvalidKeyEchoed", {Raw(401, shapes::kOpenAiInvalidKey)}, "MODEL_HTTP_ERROR",
       "HTTP 401", "HTTP 401"},
      {"OverloadedAfterRetries", Times(3, Raw(503, shapes::kGatewayNoDeployments)),
       "MODEL_HTTP_ERROR", "after 3 attempts", "重试后仍未成功"},
      {"ErrorObjectWith200", Times(3, Raw(200, shapes::kLiteLlmErrorWith200)),
       "MODEL_BAD_RESPONSE", "Invalid model name", "不是可用的回答"},
      {"OllamaZeroValue", Times(3, Raw(200, shapes::kOllamaZeroValue)), "MODEL_BAD_RESPONSE",
       "zero-value", "不是可用的回答"},
      {"StreamNotAskedFor", {Raw(200, shapes::kEventStreamInsteadOfJson, "text/event-stream")},
       "MODEL_BAD_RESPONSE", "text/event-stream", "不是可用的回答"},
      {"AllTokensSpentOnReasoning", {Raw(200, shapes::kDeepSeekReasoningOnlyLength)},
       "MODEL_OUTPUT_TRUNCATED", "token limit", "截断"},
  };
}

class FailureReasonTest : public CliTest, public ::testing::WithParamInterface<FailureCase> {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    ::setenv("DIAGD_MODEL_API_KEY", kKey, 1);
  }
  void TearDown() override {
    ::unsetenv("DIAGD_MODEL_API_KEY");
    CliTest::TearDown();
  }
};

TEST_P(FailureReasonTest, TheRunFailsSayingWhyEverywhere) {
  const FailureCase& c = GetParam();
  for (const auto& reply : c.replies) server_.Then(reply);
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  EXPECT_EQ(ask.exit_code, 1) << ask.err;
  EXPECT_EQ(server_.Remaining(), 0u) << "every scripted attempt was made";
  EXPECT_EQ(server_.Requests().size(), c.replies.size()) << "no attempt beyond the script";

  auto result = boost::json::parse(ask.out).as_object();
  ASSERT_TRUE(result.at("fallback").is_object()) << ask.out;
  EXPECT_EQ(result.at("fallback").at("code"), "FAILED");
  std::string limitations = boost::json::serialize(result.at("fallback").at("limitations"));
  EXPECT_NE(limitations.find(c.limitation_has), std::string::npos) << limitations;

  EXPECT_NE(ask.err.find(std::string("the run failed: ") + c.reason), std::string::npos)
      << ask.err;
  EXPECT_NE(ask.err.find(c.detail_has), std::string::npos) << ask.err;

  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_EQ(record.at("status"), "FAILED");
  EXPECT_EQ(record.at("failure_reason"), c.reason);
  std::string detail(record.at("failure_detail").as_string());
  EXPECT_NE(detail.find(c.detail_has), std::string::npos) << detail;
  EXPECT_NE(detail.find("DIAGNOSIS_AGENT"), std::string::npos) << "names the component";
  EXPECT_LE(detail.size(), 300u * 4);
  const auto& failures = record.at("model_failures").as_array();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].at("component"), "DIAGNOSIS_AGENT");
  EXPECT_EQ(failures[0].at("reason"), c.reason);

  // The key, and the start of any key the provider echoed, never shows.
  for (const std::string& text : {ask.out, ask.err, boost::json::serialize(record)}) {
    EXPECT_EQ(text.find(kKey), std::string::npos);
    EXPECT_EQ(text.find("sk-e2e"), std::string::npos);
    EXPECT_EQ(text.find("sk-test-"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Endpoints, FailureReasonTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// DeepSeek spent every token of the answer on reasoning and billed them:
// the run still fails MODEL_OUTPUT_TRUNCATED, and the call is on the
// record as a MODEL_CALL with its usage, counted in the run's totals.
TEST_F(CliTest, ABilledCompletionOfNoUseIsAccountedAndTheRunFailsTruncated) {
  server_.Then(Raw(200, shapes::kDeepSeekReasoningOnlyLength));
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  EXPECT_EQ(ask.exit_code, 1) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_EQ(record.at("failure_reason"), "MODEL_OUTPUT_TRUNCATED");
  EXPECT_EQ(record.at("total_token_count").as_int64(), 4024);

  std::vector<boost::json::object> model_calls;
  const boost::json::object* finished = nullptr;
  for (const auto& event : record.at("trace").as_array()) {
    const auto& fields = event.at("fields").as_object();
    if (event.at("type") == "MODEL_CALL") model_calls.push_back(fields);
    if (event.at("type") == "RUN_FINISHED") finished = &fields;
  }
  ASSERT_EQ(model_calls.size(), 1u);
  EXPECT_EQ(model_calls[0].at("component"), "DIAGNOSIS_AGENT");
  EXPECT_EQ(model_calls[0].at("usage_available"), true);
  EXPECT_EQ(model_calls[0].at("input_tokens").as_int64(), 3000);
  EXPECT_EQ(model_calls[0].at("output_tokens").as_int64(), 1024);
  EXPECT_EQ(model_calls[0].at("total_tokens").as_int64(), 4024);
  ASSERT_NE(finished, nullptr);
  EXPECT_EQ(finished->at("audited_calls").as_int64(), 1);
  EXPECT_EQ(finished->at("audited_total_tokens").as_int64(), 4024);
  EXPECT_EQ(finished->at("budget_total_tokens").as_int64(), 4024);
  EXPECT_EQ(finished->at("tokens_reconciled"), true);
}

TEST_F(CliTest, AnUnreachableEndpointIsModelUnreachable) {
  std::string config = ReadFile(dir_ / "diagd.toml");
  config.replace(config.find(server_.BaseUrl()), server_.BaseUrl().size(), "http://127.0.0.1:9/v1");
  std::ofstream(dir_ / "diagd.toml") << config;
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  EXPECT_EQ(ask.exit_code, 1);
  EXPECT_NE(ask.err.find("the run failed: MODEL_UNREACHABLE"), std::string::npos) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_EQ(record.at("failure_reason"), "MODEL_UNREACHABLE");
  std::string limitations = boost::json::serialize(result.at("fallback").at("limitations"));
  EXPECT_NE(limitations.find("无法连接模型服务"), std::string::npos) << limitations;
}

// A router that fails does not fail the run: it goes to diagnosis, and the
// failed call is still on the record.
TEST_F(CliTest, AFailedRouterCallIsRecordedWithoutFailingTheRun) {
  server_.Then(Raw(400, shapes::kLmStudioBareStringError))
      .CallTools({{"call_1", "query_logs",
                   R"({"input":{"topic":"payment-service","query":"level:ERROR HikariPool"}})",
                   false}})
      .Answer(std::string(R"({"conclusion":{"root_cause":"payment-service 数据库连接池耗尽",)") +
              R"("confidence":"MEDIUM","evidence":[{"tool_call_id":"call_1","quote":")" +
              testing::kScriptedDiagnosisQuote + R"("}]}})")
      .Answer(R"({"verdict":"SUPPORTED"})");
  auto ask = Ask("订单服务为什么大量 500？");
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  EXPECT_NE(ask.err.find("model call failed: ROUTER MODEL_HTTP_ERROR"), std::string::npos)
      << ask.err;
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_TRUE(record.at("failure_reason").is_null());
  ASSERT_EQ(record.at("model_failures").as_array().size(), 1u);
  EXPECT_EQ(record.at("model_failures").as_array()[0].at("component"), "ROUTER");
}

}  // namespace
}  // namespace diagd
