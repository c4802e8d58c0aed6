// docs/model-endpoints.md over the server: a run that fails on the model endpoint
// (the scripted model server over real HTTP, answering with a vLLM refusal;
// it is no model) streams a FAILED fallback whose limitations name the
// failure, stores failure_reason and failure_detail, counts
// diagd_model_failures_total, and logs both in run_finished.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "model/endpoint_shapes.h"
#include "server/json_body.h"
#include "server/server_fixture.h"
#include "testing/scripted_model_server.h"

namespace diagd::server::testing {
namespace {

namespace shapes = model::shapes;

// One failure kind over the server: what the endpoint answers the
// diagnosis agent (after a router that fails on a 503), the reason, and
// the words of the limitation sentence.
struct ServedFailure {
  const char* name;
  int status;
  const char* body;
  int times;  // as many as the client tries
  const char* content_type;
  const char* reason;
  const char* limitation_has;
};

class ServedFailureTest : public ::testing::TestWithParam<ServedFailure> {};

TEST_P(ServedFailureTest, StreamRecordAndMetricsNameTheReason) {
  const ServedFailure& c = GetParam();
  diagd::testing::ScriptedModelServer model;
  for (int i = 0; i < c.times; ++i) model.AnswerRaw(c.status, c.content_type, c.body);
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  ServerFixture server(options);
  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   R"({"message":"订单服务为什么大量 500？","route":"diagnosis"})");
  ASSERT_EQ(stream.status(), 200);
  auto events = stream.Rest();
  ASSERT_GE(events.size(), 4u);
  ASSERT_EQ(events[events.size() - 2].name, "result");
  auto result = Json(events[events.size() - 2].data);
  std::string limitations = boost::json::serialize(result.at("fallback").at("limitations"));
  EXPECT_NE(limitations.find(c.limitation_has), std::string::npos) << limitations;
  auto record = Json(server.Get("/api/v1/runs/" + std::string(result.at("run_id").as_string())).body);
  EXPECT_EQ(record.at("failure_reason"), c.reason);
  std::string metrics = server.Get("/metrics").body;
  EXPECT_NE(metrics.find(std::string("diagd_model_failures_total{component=\"DIAGNOSIS_AGENT\",") +
                         "reason=\"" + c.reason + "\"} 1\n"),
            std::string::npos)
      << metrics;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ServedFailureTest,
    ::testing::Values(
        ServedFailure{"HttpError", 400, shapes::kLlamaCppContextExceeded, 1, "application/json",
                      "MODEL_HTTP_ERROR", "HTTP 400"},
        ServedFailure{"BadResponse", 200, shapes::kOllamaZeroValue, 3, "application/json",
                      "MODEL_BAD_RESPONSE", "不是可用的回答"},
        ServedFailure{"Truncated", 200, shapes::kDeepSeekReasoningOnlyLength, 1, "application/json",
                      "MODEL_OUTPUT_TRUNCATED", "截断"},
        ServedFailure{"NoToolSupport", 400, shapes::kOllamaDoesNotSupportTools, 1,
                      "application/json", "MODEL_NO_TOOL_SUPPORT", "不接受工具调用"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ModelFailuresOverHttpTest, AFailedRunSaysWhyInTheStreamTheRecordTheMetricsAndTheLog) {
  diagd::testing::ScriptedModelServer model;
  // The router's call fails on its own kind of error; the diagnosis agent's
  // is the one the run fails on.
  model.AnswerRaw(503, "application/json", model::shapes::kGatewayNoDeployments)
      .AnswerRaw(503, "application/json", model::shapes::kGatewayNoDeployments)
      .AnswerRaw(503, "application/json", model::shapes::kGatewayNoDeployments)
      .AnswerRaw(400, "application/json", model::shapes::kVllmAutoToolChoiceRefused);
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   R"({"message":"订单服务为什么大量 500？"})");
  ASSERT_EQ(stream.status(), 200);
  auto events = stream.Rest();
  ASSERT_GE(events.size(), 4u);
  ASSERT_EQ(events[events.size() - 2].name, "result");
  auto result = Json(events[events.size() - 2].data);
  EXPECT_EQ(result.at("fallback").at("code"), "FAILED");
  std::string limitations = boost::json::serialize(result.at("fallback").at("limitations"));
  EXPECT_NE(limitations.find("不接受工具调用"), std::string::npos) << limitations;
  EXPECT_EQ(limitations.find("MODEL_NO_TOOL_SUPPORT"), std::string::npos)
      << "a plain sentence, not the code";
  EXPECT_EQ(limitations.find("--enable-auto-tool-choice"), std::string::npos)
      << "the provider's words are for operators";

  std::string run_id(result.at("run_id").as_string());
  auto record = Json(server.Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(record.at("status"), "FAILED");
  EXPECT_EQ(record.at("failure_reason"), "MODEL_NO_TOOL_SUPPORT");
  EXPECT_NE(std::string(record.at("failure_detail").as_string()).find("--enable-auto-tool-choice"),
            std::string::npos);
  EXPECT_EQ(record.at("model_failures").as_array().size(), 2u);

  std::string metrics = server.Get("/metrics").body;
  EXPECT_NE(metrics.find("diagd_model_failures_total{component=\"ROUTER\","
                         "reason=\"MODEL_HTTP_ERROR\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("diagd_model_failures_total{component=\"DIAGNOSIS_AGENT\","
                         "reason=\"MODEL_NO_TOOL_SUPPORT\"} 1\n"),
            std::string::npos)
      << metrics;

  std::string log = server.Log();
  EXPECT_NE(log.find("\"failure_reason\":\"MODEL_NO_TOOL_SUPPORT\""), std::string::npos) << log;
  EXPECT_NE(log.find("--enable-auto-tool-choice"), std::string::npos) << log;
}

}  // namespace
}  // namespace diagd::server::testing
