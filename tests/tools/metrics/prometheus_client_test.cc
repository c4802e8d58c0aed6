// The Prometheus client against a loopback server playing Prometheus's
// answers: what it sends, to the byte, and how each answer maps.
#include "tools/metrics/prometheus_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "core/percent_decode.h"
#include "testing/free_port.h"
#include "testing/loopback_http_server.h"

namespace diagd::tools::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Server = diagd::testing::LoopbackHttpServer;

// 2026-11-29T10:30:00.250Z: the range ends on the whole second.
const WallTime kNow = *ParseRfc3339("2026-11-29T10:30:00.250Z");
constexpr std::int64_t kEnd = 1795948200;

const char* kPoolAnswer =
    R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":)"
    R"("hikaricp_connections_active","pool":"HikariPool-1","service":"payment-service"},)"
    R"("values":[[1795946460,"3"],[1795946520,"4"],[1795946580,"20"]]}]}})";

struct Target {
  std::string path;
  std::map<std::string, std::string> params;
};

Target Split(const std::string& target) {
  Target out;
  auto mark = target.find('?');
  out.path = target.substr(0, mark);
  std::string query = mark == std::string::npos ? "" : target.substr(mark + 1);
  std::size_t at = 0;
  while (at <= query.size() && !query.empty()) {
    auto amp = query.find('&', at);
    std::string pair = query.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
    auto eq = pair.find('=');
    auto value = PercentDecode(pair.substr(eq + 1), true);
    EXPECT_TRUE(value) << pair;
    out.params[pair.substr(0, eq)] = value.value_or("");
    if (amp == std::string::npos) break;
    at = amp + 1;
  }
  return out;
}

class PrometheusClientTest : public ::testing::Test {
 protected:
  MetricsSettings Settings(const std::string& url) {
    MetricsSettings settings;
    settings.url = url;
    return settings;
  }
  Result<MetricsOutput, AdapterFailure> Run(
      const PrometheusClient& client, const MetricsRequest& request,
      std::chrono::milliseconds within = std::chrono::seconds(10),
      const std::stop_token& cancel = {}) {
    return client.Query(request, kNow, clock_.Monotonic() + within, cancel);
  }
  AdapterFailure Failed(const Server::Response& answer, MetricsSettings settings = {}) {
    Server server([&](const Server::Request&) { return answer; });
    settings.url = server.BaseUrl();
    PrometheusClient client(settings, clock_);
    auto out = Run(client, {"up", 60, 60});
    EXPECT_FALSE(out);
    return out ? AdapterFailure{} : out.error();
  }

  const Clock& clock_ = SystemClock::Instance();
};

TEST_F(PrometheusClientTest, SendsOneGetOfTheRangeQueryWithTheBearerTokenAndNothingElse) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer};
  });
  MetricsSettings settings = Settings(server.BaseUrl() + "/");
  settings.bearer_token = "s3cret-token";
  PrometheusClient client(settings, clock_);
  const std::string query =
      "max by (pool) (hikaricp_connections_active{service=\"payment-service\"}) + 0 & # x";
  auto out = Run(client, {query, 60, 60});
  ASSERT_TRUE(out) << out.error().message;

  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].body, "");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer s3cret-token");
  Target target = Split(requests[0].target);
  EXPECT_EQ(target.path, "/api/v1/query_range");
  EXPECT_EQ(target.params.size(), 5u);
  EXPECT_EQ(target.params["query"], query);
  EXPECT_EQ(target.params["end"], std::to_string(kEnd));
  // 60 points a minute apart, the newest on now.
  EXPECT_EQ(target.params["start"], std::to_string(kEnd - 59 * 60));
  EXPECT_EQ(target.params["step"], "60");
  EXPECT_THAT(target.params["timeout"], ::testing::MatchesRegex("[0-9]+ms"));
  EXPECT_LE(std::stoi(target.params["timeout"]), 10000);
  // The query travels encoded: no raw space, '&', '#' or quote in the target.
  EXPECT_THAT(requests[0].target, Not(HasSubstr(" ")));
  EXPECT_THAT(requests[0].target, Not(HasSubstr("\"")));
  EXPECT_THAT(requests[0].target, Not(HasSubstr("#")));

  EXPECT_EQ(out->raw_response, kPoolAnswer);
  ASSERT_EQ(out->result.series.size(), 1u);
  EXPECT_EQ(out->result.query, query);
  EXPECT_EQ(out->result.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(out->result.series[0].summary,
            "hikaricp_connections_active{pool=\"HikariPool-1\", service=\"payment-service\"}: "
            "first 3 at 2026-11-29T10:01:00Z, last 20 at 2026-11-29T10:03:00Z, min 3, max 20, "
            "largest change +16 at 2026-11-29T10:03:00Z");
}

TEST_F(PrometheusClientTest, WithoutATokenNoAuthorizationAndAPathPrefixIsKept) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer};
  });
  PrometheusClient client(Settings(server.BaseUrl() + "/prometheus"), clock_);
  ASSERT_TRUE(Run(client, {"up", 10, 15}));
  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  Target target = Split(requests[0].target);
  EXPECT_EQ(target.path, "/prometheus/api/v1/query_range");
  EXPECT_EQ(target.params["step"], "15");
  EXPECT_EQ(target.params["start"], std::to_string(kEnd - 39 * 15));  // 40 points in 10 minutes
}

TEST_F(PrometheusClientTest, AStepThatDoesNotDivideTheLookbackStillEndsOnNow) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer};
  });
  MetricsSettings settings = Settings(server.BaseUrl());
  settings.rules.max_points = 7;
  PrometheusClient client(settings, clock_);
  ASSERT_TRUE(Run(client, {"up", 60, 700}));  // 5 points 700 s apart fit in an hour
  Target target = Split(server.Requests().at(0).target);
  EXPECT_EQ(target.params["end"], std::to_string(kEnd));
  EXPECT_EQ(target.params["start"], std::to_string(kEnd - 4 * 700));
  ASSERT_TRUE(Run(client, {"up", 60, 515}));  // 6 points fit, not 7
  target = Split(server.Requests().at(1).target);
  EXPECT_EQ(target.params["start"], std::to_string(kEnd - 5 * 515));
}

TEST_F(PrometheusClientTest, ABadQueryIsQueryFailedWithPrometheussMessage) {
  AdapterFailure failure = Failed(
      {400, "application/json",
       R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:4: parse error: unexpected end of input"})"});
  EXPECT_EQ(failure.code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(failure.message,
            "invalid parameter \"query\": 1:4: parse error: unexpected end of input");
}

TEST_F(PrometheusClientTest, A503IsQueryFailedWithItsMessageButATimeoutIsATimeout) {
  AdapterFailure unavailable =
      Failed({503, "application/json",
              R"({"status":"error","errorType":"unavailable","error":"TSDB not ready"})"});
  EXPECT_EQ(unavailable.code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(unavailable.message, "TSDB not ready");
  AdapterFailure timeout =
      Failed({503, "application/json",
              R"({"status":"error","errorType":"timeout","error":"query timed out"})"});
  EXPECT_EQ(timeout.code, ToolErrorCode::kToolTimeout);
}

TEST_F(PrometheusClientTest, GarbageAndAProxysPageAreUnavailable) {
  EXPECT_EQ(Failed({200, "text/html", "<html>sign in</html>"}).code,
            ToolErrorCode::kToolUnavailable);
  EXPECT_EQ(Failed({502, "text/plain", "Bad Gateway"}).code, ToolErrorCode::kToolUnavailable);
  Server::Response hang_up;
  hang_up.hang_up = true;
  EXPECT_EQ(Failed(hang_up).code, ToolErrorCode::kToolUnavailable);
}

TEST_F(PrometheusClientTest, ASlowServerIsATimeoutAtTheDeadline) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer, std::chrono::seconds(5)};
  });
  PrometheusClient client(Settings(server.BaseUrl()), clock_);
  auto started = clock_.Monotonic();
  auto out = Run(client, {"up", 60, 60}, std::chrono::milliseconds(300));
  auto took = clock_.Monotonic() - started;
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(took, std::chrono::seconds(2));
  // The server was told the same bound, so it gives up too.
  EXPECT_LE(std::stoi(Split(server.Requests().at(0).target).params["timeout"]), 300);
}

TEST_F(PrometheusClientTest, TheConfiguredTimeoutBoundsACallWhenTheDeadlineIsFar) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer, std::chrono::seconds(5)};
  });
  MetricsSettings settings = Settings(server.BaseUrl());
  settings.timeout_ms = 200;
  PrometheusClient client(settings, clock_);
  auto started = clock_.Monotonic();
  auto out = Run(client, {"up", 60, 60}, std::chrono::seconds(30));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(clock_.Monotonic() - started, std::chrono::seconds(2));
  EXPECT_EQ(Split(server.Requests().at(0).target).params["timeout"], "200ms");
}

TEST_F(PrometheusClientTest, NoTimeLeftSendsNothing) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer};
  });
  PrometheusClient client(Settings(server.BaseUrl()), clock_);
  auto out = client.Query({"up", 60, 60}, kNow, clock_.Monotonic() - std::chrono::seconds(1));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_TRUE(server.Requests().empty());
}

TEST_F(PrometheusClientTest, AHugeAnswerAsksForANarrowerQuery) {
  std::string huge = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  while (huge.size() <= kMaxResponseBytes) {
    huge += R"({"metric":{"__name__":"m","i":")" + std::to_string(huge.size()) +
            R"("},"values":[[1795946460,"3"]]},)";
  }
  huge.pop_back();
  huge += "]}}";
  AdapterFailure failure = Failed({200, "application/json", huge});
  EXPECT_EQ(failure.code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(failure.message,
            "the result is too large: narrow the query (fewer series or a shorter range)");
}

TEST_F(PrometheusClientTest, NobodyListeningIsUnavailable) {
  int port = diagd::testing::FreeLoopbackPort();
  PrometheusClient client(Settings("http://127.0.0.1:" + std::to_string(port)), clock_);
  auto out = Run(client, {"up", 60, 60});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
}

TEST_F(PrometheusClientTest, CancellingAbandonsTheCallAtOnce) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json", kPoolAnswer, std::chrono::seconds(5)};
  });
  PrometheusClient client(Settings(server.BaseUrl()), clock_);
  std::stop_source stop;
  std::jthread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  auto started = clock_.Monotonic();
  auto out = Run(client, {"up", 60, 60}, std::chrono::seconds(10), stop.get_token());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
  EXPECT_LT(clock_.Monotonic() - started, std::chrono::seconds(2));
}

TEST_F(PrometheusClientTest, CredentialsNeverReachAMessage) {
  int port = diagd::testing::FreeLoopbackPort();
  MetricsSettings settings = Settings("http://reader:pa55word@127.0.0.1:" + std::to_string(port));
  settings.bearer_token = "t0ken";
  PrometheusClient client(settings, clock_);
  EXPECT_THAT(client.RedactedUrl(), Not(HasSubstr("pa55word")));
  EXPECT_THAT(client.RedactedUrl(), HasSubstr("127.0.0.1"));
  auto out = Run(client, {"up", 60, 60});
  ASSERT_FALSE(out);
  auto census = client.Census(kNow, clock_.Monotonic() + std::chrono::seconds(5));
  ASSERT_FALSE(census);
  for (const std::string& message : {out.error().message, census.error().message}) {
    EXPECT_THAT(message, Not(HasSubstr("pa55word")));
    EXPECT_THAT(message, Not(HasSubstr("t0ken")));
    EXPECT_THAT(message, Not(HasSubstr("reader")));
  }
}

TEST_F(PrometheusClientTest, CensusCountsTheNamesOverTheMaximumLookback) {
  Server server([](const Server::Request&) {
    return Server::Response{200, "application/json",
                            R"({"status":"success","data":["hikaricp_connections_active","up"]})"};
  });
  MetricsSettings settings = Settings(server.BaseUrl());
  settings.bearer_token = "t0ken";
  PrometheusClient client(settings, clock_);
  auto census = client.Census(kNow, clock_.Monotonic() + std::chrono::seconds(5));
  ASSERT_TRUE(census) << census.error().message;
  EXPECT_EQ(census->names, 2u);
  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer t0ken");
  Target target = Split(requests[0].target);
  EXPECT_EQ(target.path, "/api/v1/label/__name__/values");
  EXPECT_EQ(target.params.size(), 2u);
  EXPECT_EQ(target.params["end"], std::to_string(kEnd));
  EXPECT_EQ(target.params["start"], std::to_string(kEnd - 1440 * 60));
}

TEST_F(PrometheusClientTest, ConcurrentQueriesEachGetTheirOwnAnswer) {
  Server server([](const Server::Request& request) {
    std::string query = Split(request.target).params["query"];
    return Server::Response{
        200, "application/json",
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":")" +
            query + R"("},"values":[[1795946460,"1"]]}]}})",
        std::chrono::milliseconds(20)};
  });
  PrometheusClient client(Settings(server.BaseUrl()), clock_);
  std::vector<std::string> seen(8);
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&, i] {
        auto out = Run(client, {"metric_" + std::to_string(i), 60, 60});
        if (out && out->result.series.size() == 1) seen[i] = out->result.series[0].labels[0].second;
      });
    }
  }
  for (int i = 0; i < 8; ++i) EXPECT_EQ(seen[i], "metric_" + std::to_string(i));
}

TEST(ValidateSettingsTest, UrlIsRequiredAndTheRulesMustBeUsable) {
  MetricsSettings settings;
  EXPECT_THAT(ValidateSettings(settings).error().message, HasSubstr("tools.metrics.url"));
  settings.url = "ftp://x";
  EXPECT_FALSE(ValidateSettings(settings));
  settings.url = "https://prometheus.example:9090";
  EXPECT_TRUE(ValidateSettings(settings));
  MetricsSettings bad = settings;
  bad.rules.default_lookback_minutes = 2000;
  EXPECT_THAT(ValidateSettings(bad).error().message, HasSubstr("default_lookback_minutes"));
  bad = settings;
  bad.rules.max_lookback_minutes = kMaxLookbackMinutes + 1;
  EXPECT_THAT(ValidateSettings(bad).error().message, HasSubstr("max_lookback_minutes"));
  bad.rules.max_lookback_minutes = kMaxLookbackMinutes;
  EXPECT_TRUE(ValidateSettings(bad));
  bad = settings;
  bad.rules.max_series = 0;
  EXPECT_THAT(ValidateSettings(bad).error().message, HasSubstr("max_series"));
  bad = settings;
  bad.rules.max_points = 0;
  EXPECT_THAT(ValidateSettings(bad).error().message, HasSubstr("max_points"));
  bad = settings;
  bad.timeout_ms = 0;
  EXPECT_THAT(ValidateSettings(bad).error().message, HasSubstr("timeout_ms"));
}

}  // namespace
}  // namespace diagd::tools::metrics
