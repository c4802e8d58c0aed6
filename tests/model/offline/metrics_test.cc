// The offline model's use of query_metrics: the series summary it reads,
// which series are signals (saturation, latency, errors rising at the
// onset), the queries it asks and when, and what its draft makes of them:
// findings that cite a summary line, corroboration of a cause the change
// record names, never a cause of their own. Over hand-written
// conversations whose tools answer like the real ones, and once over the
// demo's recording served by a real Prometheus and read by the real client.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "agent/draft.h"
#include "core/clock.h"
#include "core/json.h"
#include "model/offline/case_file.h"
#include "model/offline/conclusion_writer.h"
#include "model/offline/conversation.h"
#include "model/offline/metric_queries.h"
#include "model/offline/metric_signals.h"
#include "model/offline/next_step.h"
#include "model/offline/observation_text.h"
#include "model/offline/text_match.h"
#include "testing/prometheus_server.h"
#include "tools/metrics/metrics_tool.h"
#include "tools/metrics/prometheus_client.h"

namespace diagd::model::offline {
namespace {

using testing::Conversation;
namespace bj = boost::json;

const char* const kQuestion = "订单服务从 10 点左右开始大量 500，为什么？";

// query_metrics as a workspace with `[tools.metrics]` offers it.
FunctionTool MetricsTool(bool english = false) {
  tools::metrics::MetricsRules rules;
  return {"query_metrics", tools::metrics::Description(rules, english),
          json::Serialize(bj::object{
              {"type", "object"},
              {"properties", bj::object{{"input", tools::metrics::InputSchema(rules)}}}})};
}

// --- series as the tool returns them ---------------------------------------

using Labels = std::vector<std::pair<std::string, std::string>>;
using Shape = std::function<double(int minute_times_ten)>;

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string TimeAt(int tenths) {  // tenths of a minute after 09:30:00
  int seconds = tenths * 6;
  int hour = 9 + (30 * 60 + seconds) / 3600;
  int minute = ((30 * 60 + seconds) / 60) % 60;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "2026-11-29T%02d:%02d:%02dZ", hour, minute, seconds % 60);
  return buffer;
}

// One series from 09:30 to 10:30 every 90 s, its summary written the way
// the tool writes it.
bj::object Series(const Labels& labels, const Shape& shape) {
  bj::object label_object;
  std::string head, name;
  for (const auto& [key, value] : labels) {
    label_object[key] = value;
    if (key == "__name__") {
      name = value;
    } else {
      head += (head.empty() ? "" : ", ") + key + "=\"" + value + "\"";
    }
  }
  bj::array points;
  std::vector<std::pair<std::string, double>> read;
  for (int tenths = 0; tenths <= 600; tenths += 15) {
    double value = shape(tenths);
    read.emplace_back(TimeAt(tenths), value);
    points.push_back(bj::array{bj::value(TimeAt(tenths)), bj::value(value)});
  }
  double low = read[0].second, high = read[0].second, change = 0;
  std::string change_at;
  for (std::size_t i = 0; i < read.size(); ++i) {
    low = std::min(low, read[i].second);
    high = std::max(high, read[i].second);
    if (i > 0 && std::fabs(read[i].second - read[i - 1].second) > std::fabs(change)) {
      change = read[i].second - read[i - 1].second;
      change_at = read[i].first;
    }
  }
  if (change_at.empty()) change_at = read[1].first;
  std::string summary = name + (head.empty() ? "" : "{" + head + "}") + ": first " +
                        Number(read.front().second) + " at " + read.front().first + ", last " +
                        Number(read.back().second) + " at " + read.back().first + ", min " +
                        Number(low) + ", max " + Number(high) + ", largest change " +
                        (change >= 0 ? "+" : "") + Number(change) + " at " + change_at;
  return bj::object{{"labels", label_object}, {"summary", summary}, {"points", points}};
}

constexpr int kOnset = 320;  // 10:02

const Labels kPaymentPool = {{"__name__", "hikaricp_connections_active"},
                             {"pool", "HikariPool-1"},
                             {"service", "payment-service"}};
const Labels kPaymentPoolMax = {{"__name__", "hikaricp_connections_max"},
                                {"pool", "HikariPool-1"},
                                {"service", "payment-service"}};
const Labels kOrderPool = {{"__name__", "hikaricp_connections_active"},
                           {"pool", "order-pool"},
                           {"service", "order-service"}};
const Labels kOrderLatency = {{"__name__", "http_server_duration_seconds"},
                              {"quantile", "0.99"},
                              {"service", "order-service"}};
const Labels kPaymentDbLatency = {{"__name__", "mysql_query_duration_seconds"},
                                  {"digest", "PaymentRecordMapper.selectRecentByUserId"},
                                  {"quantile", "0.99"},
                                  {"service", "payment-db"}};

// The demo's pool: 2-4 before 10:02, climbing, at its maximum 20 from 10:04.
double PaymentPool(int t) {
  if (t < kOnset) return 2 + (t / 15) % 3;
  return t < kOnset + 20 ? 12 : 20;
}
// Busy but steady all along: 3 to 6.
double OrderPool(int t) { return 3 + (t / 15) % 4; }
// Slower only from 10:20, well after the onset.
double LateLatency(int t) { return t < 500 ? 0.2 : 3.5; }
// The demo's slow query: 0.01 s, then 4.7 s, growing to 60-90 s from 10:09.
double SlowQuery(int t) {
  if (t < kOnset + 5) return 0.01;
  if (t < 390) return 4.7 + (t - kOnset) * 0.5;
  return 60 + ((t / 15) % 3) * 15;
}

std::string MetricsObservation(const std::string& query, const bj::array& series) {
  return json::Serialize(bj::object{{"tool_call_id", "$ID"},
                                    {"query", query},
                                    {"lookback_minutes", 60},
                                    {"step_seconds", 90},
                                    {"evidence_status", "EVIDENCE_FOUND"},
                                    {"series", series},
                                    {"truncated", false}});
}

// --- the other tools ---------------------------------------------------------

std::string Event(const std::string& time, const std::string& service, const std::string& message) {
  return json::Serialize(bj::object{
      {"timestamp", time}, {"level", "ERROR"}, {"service", service}, {"message", message}});
}

std::string LogsResult(const std::string& topic, const std::vector<std::string>& events) {
  std::string joined;
  for (const auto& e : events) joined += (joined.empty() ? "" : ",") + e;
  return R"({"tool_call_id":"$ID","topic":")" + topic +
         R"(","query":"level:ERROR","lookback_minutes":60,"evidence_status":"EVIDENCE_FOUND","events":[)" +
         joined + R"(],"truncated":false})";
}

const char* const kOrderFailed =
    "c.s.order.service.OrderService - 下单支付失败，订单置为 FAILED errorCode=PAY_DB_UNAVAILABLE: "
    "feign.FeignException$InternalServerError: [500] during [POST] to "
    "[http://payment-service/internal/v1/payments]";
const char* const kPoolEmpty =
    "c.s.pay.web.GlobalExceptionHandler - POST /internal/v1/payments 处理失败，返回 500 "
    "PAY_DB_UNAVAILABLE: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is "
    "not available, request timed out after 5000ms.";

const char* const kNoEvidence =
    R"({"tool_call_id":"$ID","evidence_status":"NO_EVIDENCE","evidence":[],"events":[],"rows":[],"series":[],"truncated":false})";

// The workspace of the tests: order-service fails calling payment-service,
// whose pool is empty, from 10:02; the metrics named after the services;
// with `release`, a deployments table holding payment-service's release of
// 09:58. Anything else finds nothing. `metrics` answers query_metrics.
struct Workspace {
  bool release = false;
  std::function<std::string(const std::string& query)> metrics;

  std::string operator()(const ToolCall& call) const {
    auto arguments = json::Parse(call.arguments);
    bj::object input = arguments && arguments->is_object() &&
                               arguments->as_object().contains("input")
                           ? arguments->as_object().at("input").as_object()
                           : bj::object{};
    std::string topic(json::GetString(input, "topic").value_or(""));
    std::string query(json::GetString(input, "query").value_or(""));
    std::string sql(json::GetString(input, "sql").value_or(""));
    if (call.name == "query_logs" && topic == "order-service") {
      return LogsResult(topic, {Event("2026-11-29T10:02:12.000Z", topic, kOrderFailed),
                                Event("2026-11-29T10:29:40.000Z", topic, kOrderFailed)});
    }
    if (call.name == "query_logs" && topic == "payment-service") {
      return LogsResult(topic, {Event("2026-11-29T10:02:05.000Z", topic, kPoolEmpty),
                                Event("2026-11-29T10:29:41.000Z", topic, kPoolEmpty)});
    }
    if (call.name == "query_metrics" && metrics) return metrics(query);
    if (call.name == "query_mysql" && release && sql.find("information_schema") != std::string::npos) {
      return R"({"tool_call_id":"$ID","datasource":"orders","evidence_status":"EVIDENCE_FOUND",)"
             R"("columns":["table_name","column_names"],)"
             R"("rows":[["deployments","id,service,version,deployed_at,ticket,change_summary,db_change"]],"truncated":false})";
    }
    if (call.name == "query_mysql" && release && sql.find("FROM deployments") != std::string::npos) {
      return R"({"tool_call_id":"$ID","datasource":"orders","evidence_status":"EVIDENCE_FOUND",)"
             R"("columns":["id","service","version","deployed_at","ticket","change_summary","db_change"],)"
             R"("rows":[[7,"payment-service","v2.3.1","2026-11-29 09:58:00","PAY-1423",)"
             R"("/internal/v1/payments 支付记录改为按 user_id 查询最近记录","无"]],"truncated":false})";
    }
    return kNoEvidence;
  }
};

// The demo's series of the components a selector names.
std::string DemoMetrics(const std::string& query) {
  bj::array series;
  if (query.find("payment-service") != std::string::npos) {
    series.push_back(Series(kPaymentPool, PaymentPool));
    series.push_back(Series(kPaymentPoolMax, [](int) { return 20.0; }));
  }
  if (query.find("order-service") != std::string::npos) {
    series.push_back(Series(kOrderPool, OrderPool));
    series.push_back(Series(kOrderLatency, LateLatency));
  }
  if (series.empty()) return kNoEvidence;
  return MetricsObservation(query, series);
}

std::vector<ToolCall> CallsOf(const Conversation& conversation, const std::string& tool) {
  std::vector<ToolCall> calls;
  for (const auto& call : conversation.Calls()) {
    if (call.name == tool) calls.push_back(call);
  }
  return calls;
}

std::string InputQuery(const ToolCall& call) {
  auto parsed = json::Parse(call.arguments);
  if (!parsed || !parsed->is_object()) return {};
  const auto* input = parsed->as_object().if_contains("input");
  return input && input->is_object()
             ? std::string(json::GetString(input->as_object(), "query").value_or(""))
             : std::string();
}

std::string SummaryOf(const Labels& labels, const Shape& shape) {
  return std::string(Series(labels, shape).at("summary").as_string());
}

// --- the summary line ----------------------------------------------------------

TEST(MetricsSummary, ReadsEveryPartOfTheLine) {
  auto summary = ParseSeriesSummary(
      R"(hikaricp_connections_active{pool="HikariPool-1", service="payment-service"}: first 2 at )"
      R"(2026-11-29T09:30:00Z, last 20 at 2026-11-29T10:30:00Z, min 2, max 20, largest change +10 )"
      R"(at 2026-11-29T10:03:00Z)");
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->head,
            R"(hikaricp_connections_active{pool="HikariPool-1", service="payment-service"})");
  EXPECT_EQ(summary->first, "2");
  EXPECT_EQ(summary->first_time, "2026-11-29 09:30:00");
  EXPECT_EQ(summary->last, "20");
  EXPECT_EQ(summary->min, "2");
  EXPECT_EQ(summary->max, "20");
  EXPECT_EQ(summary->change, "+10");
  EXPECT_EQ(summary->change_time, "2026-11-29 10:03:00");
}

TEST(MetricsSummary, ALabelValueThatLooksLikeTheTailDoesNotConfuseIt) {
  auto summary = ParseSeriesSummary(
      R"(up{note="x: first 1 at y"}: first 1 at 2026-11-29T10:00:00Z, last 1 at )"
      R"(2026-11-29T10:00:00Z, min 1, max 1, largest change none)");
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->head, R"(up{note="x: first 1 at y"})");
  EXPECT_TRUE(summary->change.empty());
  EXPECT_TRUE(summary->change_time.empty());
}

TEST(MetricsSummary, ALineOfAnotherShapeIsNone) {
  for (const char* line :
       {"", "up", "up: first 1", "up: first 1 at 2026-11-29T10:00:00Z, last 1 at 2026-11-29T10:00:00Z",
        "up: first 1 at 2026-11-29T10:00:00Z, last 1 at 2026-11-29T10:00:00Z, min 1, max 1, "
        "largest change +1 at yesterday",
        "up: first 1 at noon, last 1 at 2026-11-29T10:00:00Z, min 1, max 1, largest change none"}) {
    EXPECT_FALSE(ParseSeriesSummary(line).has_value()) << line;
  }
}

// --- which series are signals ----------------------------------------------------

SeriesItem Named(const std::string& name, Labels more = {}) {
  SeriesItem series;
  series.labels.emplace_back("__name__", name);
  series.labels.insert(series.labels.end(), more.begin(), more.end());
  return series;
}

TEST(MetricsSignals, TellsSaturationLatencyAndErrorsByName) {
  EXPECT_EQ(SignalKindOf(Named("hikaricp_connections_active")), SignalKind::kSaturation);
  EXPECT_EQ(SignalKindOf(Named("executor_queue_remaining_tasks")), SignalKind::kSaturation);
  EXPECT_EQ(SignalKindOf(Named("mysql_query_duration_seconds")), SignalKind::kLatency);
  EXPECT_EQ(SignalKindOf(Named("rpc_seconds", {{"quantile", "0.99"}})), SignalKind::kLatency);
  EXPECT_EQ(SignalKindOf(Named("http_server_error_ratio")), SignalKind::kErrorRate);
  EXPECT_EQ(SignalKindOf(Named("gateway_5xx_ratio")), SignalKind::kErrorRate);
  // A capacity, a raw counter, bytes, a bare seconds gauge, no name.
  for (const char* name : {"hikaricp_connections_max", "http_server_errors_total",
                           "http_request_duration_seconds_bucket", "node_filesystem_avail_bytes",
                           "process_start_time_seconds", ""}) {
    EXPECT_FALSE(SignalKindOf(Named(name)).has_value()) << name;
  }
}

// A state holding one metrics call that returned `series`.
InvestigationState WithMetrics(const bj::array& series) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool())
      .Call("call_1", "query_metrics", R"({"input":{"query":"{service=~\"x\"}"}})")
      .Observe("call_1", MetricsObservation("{service=~\"x\"}", series));
  return RebuildState(conversation.Request());
}

TEST(MetricsSignals, ARiseAtTheOnsetIsASignalAndSteadyOrLateSeriesAreNot) {
  bj::array series{Series(kPaymentPool, PaymentPool), Series(kPaymentPoolMax, [](int) { return 20.0; }),
                   Series(kOrderPool, OrderPool), Series(kOrderLatency, LateLatency),
                   Series(kPaymentDbLatency, SlowQuery)};
  InvestigationState state = WithMetrics(series);
  ASSERT_EQ(state.calls.size(), 1u);
  ASSERT_EQ(state.calls[0].series.size(), 5u);
  auto signals = FindMetricSignals(state, "2026-11-29 10:02:05", {"order-service", "payment-service"});
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(signals[0].name, "hikaricp_connections_active");
  EXPECT_EQ(signals[0].kind, SignalKind::kSaturation);
  EXPECT_EQ(signals[0].began, "2026-11-29 10:03:00");
  EXPECT_EQ(signals[0].before, "3");
  EXPECT_EQ(signals[0].after, "20");
  EXPECT_EQ(signals[0].limit, "20") << "the pool reached hikaricp_connections_max";
  EXPECT_TRUE(signals[0].about_chain);
  EXPECT_EQ(signals[0].quote, SummaryOf(kPaymentPool, PaymentPool));
  // The slow query's largest jump comes late (60 -> 90 at 10:1x), but it
  // left its level at the onset.
  EXPECT_EQ(signals[1].name, "mysql_query_duration_seconds");
  EXPECT_EQ(signals[1].kind, SignalKind::kLatency);
  EXPECT_EQ(signals[1].began, "2026-11-29 10:03:00");
  EXPECT_FALSE(signals[1].about_chain) << "payment-db is not a topic of the chain given";
}

// The demo's slow query has no samples before the release: its series
// begins with the failure, while the pool's reaches back an hour.
TEST(MetricsSignals, ASeriesThatBeginsWithTheFailureIsASignal) {
  bj::object query = Series(kPaymentDbLatency, SlowQuery);
  bj::array& points = query.at("points").as_array();
  points.erase(points.begin(), points.begin() + 22);  // from 10:03:00
  InvestigationState state = WithMetrics({Series(kOrderPool, OrderPool), query});
  auto signals = FindMetricSignals(state, "2026-11-29 10:02:05", {"payment-db"});
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].name, "mysql_query_duration_seconds");
  EXPECT_EQ(signals[0].began, "2026-11-29 10:03:00");
  EXPECT_EQ(signals[0].before, "") << "no level before it";
  EXPECT_EQ(signals[0].after, "75");
  EXPECT_EQ(DescribeSignal(state, CaseFile{}, signals[0]),
            "mysql_query_duration_seconds（digest=PaymentRecordMapper.selectRecentByUserId, "
            "quantile=0.99, service=payment-db）延迟自 2026-11-29 10:03:00 起才出现（此前没有采样），约 75");
  // Alone, it cannot tell a series that began from a window that did.
  EXPECT_TRUE(FindMetricSignals(WithMetrics({query}), "2026-11-29 10:02:05", {}).empty());
}

TEST(MetricsSignals, WithoutAKnownOnsetAnyLastingRiseCounts) {
  InvestigationState state = WithMetrics({Series(kOrderLatency, LateLatency)});
  EXPECT_EQ(FindMetricSignals(state, "2026-11-29 10:02:05", {}).size(), 0u);
  auto signals = FindMetricSignals(state, "", {});
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].began, "2026-11-29 10:21:00");
}

TEST(MetricsSignals, AFallAndALoneSpikeAreNoSignals) {
  InvestigationState state = WithMetrics(
      {Series({{"__name__", "http_server_error_ratio"}, {"service", "gateway"}},
              [](int t) { return t < kOnset ? 0.9 : 0.01; }),
       Series({{"__name__", "thread_pool_active_threads"}, {"service", "gateway"}},
              [](int t) { return t == 330 ? 50.0 : 4.0; })});
  auto signals = FindMetricSignals(state, "2026-11-29 10:02:05", {"gateway"});
  EXPECT_TRUE(signals.empty()) << signals.front().name << " " << signals.front().began;
}

TEST(MetricsSignals, WithoutPointsTheSummarysLargestChangeDecides) {
  InvestigationState state = WithMetrics({Series(kPaymentPool, PaymentPool)});
  state.calls[0].series[0].points.clear();
  auto signals = FindMetricSignals(state, "2026-11-29 10:02:05", {"payment-service"});
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].began, "2026-11-29 10:03:00") << "the summary's +10";
  EXPECT_TRUE(FindMetricSignals(state, "2026-11-29 09:40:00", {}).empty())
      << "a change long after the onset is no signal";
}

TEST(MetricsSignals, OnlyLabelValuesAndTheSummaryAreQuotable) {
  std::string observation =
      MetricsObservation("{service=~\"x\"}", {Series(kPaymentPool, PaymentPool)});
  std::vector<std::string> texts;
  for (const auto& text : QuotableTexts(observation)) texts.push_back(text.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"hikaricp_connections_active", "HikariPool-1",
                                             "payment-service",
                                             SummaryOf(kPaymentPool, PaymentPool)}))
      << "a point's time or value is no quotable text";
}

TEST(MetricsSignals, SeriesOfAnotherShapeAreReadAsFarAsTheyGoAndNeverCited) {
  Conversation conversation(kQuestion);
  std::string good = json::Serialize(Series(kPaymentPool, PaymentPool));
  conversation.Offer(MetricsTool())
      .Call("call_1", "query_metrics", R"({"input":{"query":"up"}})")
      .Observe("call_1",
               R"({"tool_call_id":"call_1","evidence_status":"EVIDENCE_FOUND","series":[1,)"
               R"({"labels":"x","summary":5,"points":[["t"],[1,2],"z",["2026-11-29T10:00:00Z","7"]]},)"
               R"({"labels":{"__name__":"queue_depth","n":3},"summary":"queue_depth: rising"},)" +
                   good + "]}");
  auto state = RebuildState(conversation.Request());
  ASSERT_EQ(state.calls.size(), 1u);
  const auto& series = state.calls[0].series;
  ASSERT_EQ(series.size(), 3u) << "a series that is no object is left out";
  EXPECT_TRUE(series[0].labels.empty());
  EXPECT_TRUE(series[0].summary.empty());
  EXPECT_TRUE(series[0].points.empty()) << "a point is a time and a number";
  EXPECT_EQ(series[1].labels.size(), 1u) << "a label value that is no string is left out";
  auto signals = FindMetricSignals(state, "2026-11-29 10:02:05", {"payment-service"});
  ASSERT_EQ(signals.size(), 1u) << "a summary of another shape is no signal";
  EXPECT_EQ(signals[0].series, 2u);
}

// --- the queries ---------------------------------------------------------------

TEST(MetricsQueries, SelectorsEscapeTheirNamesAndLeaveCountersOut) {
  EXPECT_EQ(ComponentSelector({"order-service", "payment-service"}),
            R"({service=~"order-service|payment-service"})");
  EXPECT_EQ(ComponentSelector({"api.v2", "a\"b"}), R"({service=~"api\\.v2|a\"b"})");
  EXPECT_NE(StrainSelector().find(R"x(__name__!~".*_(total|count|sum|bucket|created|max|limit)")x"),
            std::string::npos);
}

TEST(MetricsQueries, TheWindowReachesHalfAnHourBeforeAnOnsetOlderThanTheDefaultHour) {
  InvestigationState state;
  state.offers_metrics = true;
  QuestionAnalysis analysis;
  analysis.topics = {"order-service"};
  CaseFile file;
  file.latest_time = "2026-11-29 10:30:00";
  file.stated_onset = "2026-11-29 09:20:00";
  auto query = NextMetricsQuery(state, analysis, file);
  ASSERT_TRUE(query.has_value());
  EXPECT_EQ(query->promql, R"({service=~"order-service"})") << "no chain: the topics asked about";
  EXPECT_EQ(query->lookback_minutes, 105) << "70 minutes back and 30 before, in quarters";
  file.stated_onset = "2026-11-29 10:10:00";
  EXPECT_FALSE(NextMetricsQuery(state, analysis, file)->lookback_minutes.has_value());
  state.offers_metrics = false;
  EXPECT_FALSE(NextMetricsQuery(state, analysis, file).has_value());
}

TEST(MetricsQueries, NotOfferedNeverAsked) {
  Conversation conversation(kQuestion);
  Workspace workspace;
  workspace.metrics = DemoMetrics;
  Message draft = conversation.Play(workspace);
  EXPECT_TRUE(CallsOf(conversation, "query_metrics").empty());
  EXPECT_TRUE(agent::ParseDraft(draft.content).has_value()) << draft.content;
}

TEST(MetricsQueries, AskedOnceAfterTheLogsOverTheChainsServices) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.metrics = DemoMetrics;
  conversation.Play(workspace);
  auto calls = conversation.Calls();
  auto metrics = CallsOf(conversation, "query_metrics");
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_EQ(InputQuery(metrics[0]), R"({service=~"order-service|payment-service"})");
  EXPECT_EQ(metrics[0].arguments.find("lookback_minutes"), std::string::npos)
      << "the onset lies within the tool's default hour";
  std::string order;
  for (const auto& call : calls) order += (order.empty() ? "" : " ") + call.name;
  // The logs of both services, the runbook for the pool, the tables and a
  // change notice (where a cause may be found), then the metrics, then the
  // runbook for the other link.
  EXPECT_EQ(order,
            "query_logs query_logs search_documents query_mysql search_documents query_metrics "
            "search_documents");
  // The next call grades it: the pool at its limit is new.
  EXPECT_NE(calls.back().arguments.find(R"("previous_observation":{"tool_call_id":")" +
                                        metrics[0].id + R"(","information_gain":"GAINED"})"),
            std::string::npos)
      << calls.back().arguments;
}

TEST(MetricsQueries, NoSeriesByServiceThenOnceByName) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.metrics = [](const std::string& query) -> std::string {
    if (query.find("service=~") != std::string::npos) return kNoEvidence;
    return MetricsObservation(query, {Series({{"__name__", "db_pool_active"}, {"job", "pay"}},
                                             PaymentPool)});
  };
  Message draft = conversation.Play(workspace);
  auto metrics = CallsOf(conversation, "query_metrics");
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(InputQuery(metrics[1]), StrainSelector());
  auto parsed = agent::ParseDraft(draft.content);
  ASSERT_TRUE(parsed.has_value()) << draft.content;
  bool cited = false;
  for (const auto& finding : parsed->findings) {
    cited |= finding.tool_call_id == metrics[1].id &&
             finding.quote.value_or("").find("db_pool_active{job=\"pay\"}") == 0;
  }
  EXPECT_TRUE(cited) << draft.content;
}

TEST(MetricsQueries, APromqlErrorIsRepairedOnceByNameThenLeft) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.metrics = [](const std::string&) -> std::string {
    return R"({"tool_call_id":"$ID","evidence_status":"ERROR","error_code":"QUERY_FAILED",)"
           R"("message":"1:10: parse error: unexpected character inside braces: '~'"})";
  };
  Message draft = conversation.Play(workspace);
  auto metrics = CallsOf(conversation, "query_metrics");
  ASSERT_EQ(metrics.size(), 2u) << "the name selector once, then no more metrics";
  EXPECT_EQ(InputQuery(metrics[1]), StrainSelector());
  EXPECT_NE(draft.content.find("parse error: unexpected character inside braces"), std::string::npos)
      << "the failed lookup is named with Prometheus's message: " << draft.content;
}

TEST(MetricsQueries, AnotherFailureIsNotRetried) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.metrics = [](const std::string&) -> std::string {
    return R"({"tool_call_id":"$ID","evidence_status":"ERROR","error_code":"TOOL_TIMEOUT","message":"timed out"})";
  };
  conversation.Play(workspace);
  EXPECT_EQ(CallsOf(conversation, "query_metrics").size(), 1u);
}

// --- the draft ---------------------------------------------------------------------

TEST(MetricsDraft, ASignalIsAFindingNeverACauseByItself) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;  // no change record anywhere
  workspace.metrics = DemoMetrics;
  Message answer = conversation.Play(workspace);
  auto draft = agent::ParseDraft(answer.content);
  ASSERT_TRUE(draft.has_value()) << answer.content;
  EXPECT_FALSE(draft->conclusion.has_value())
      << "the pool at its limit says what strained, not why: " << answer.content;
  std::string call = CallsOf(conversation, "query_metrics").at(0).id;
  std::vector<std::string> quotes;
  for (const auto& finding : draft->findings) {
    if (finding.tool_call_id == call) quotes.push_back(finding.quote.value_or(""));
  }
  EXPECT_EQ(quotes, std::vector<std::string>{SummaryOf(kPaymentPool, PaymentPool)})
      << "one signal; the steady pool and the late latency are not findings";
  EXPECT_NE(answer.content.find("hikaricp_connections_active（pool=HikariPool-1, "
                                "service=payment-service）饱和度自 2026-11-29 10:03:00 起由约 3 升至 "
                                "20，达到上限 20，与故障同时开始（2026-11-29 10:02:05）"),
            std::string::npos)
      << answer.content;
}

TEST(MetricsDraft, SignalsCorroborateTheReleaseTheChangeRecordNames) {
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.release = true;
  workspace.metrics = DemoMetrics;
  Message answer = conversation.Play(workspace);
  if (getenv("DIAGD_TRANSCRIPT")) std::cout << answer.content << "\n";
  auto draft = agent::ParseDraft(answer.content);
  ASSERT_TRUE(draft.has_value()) << answer.content;
  ASSERT_TRUE(draft->conclusion.has_value()) << answer.content;
  const auto& conclusion = *draft->conclusion;
  EXPECT_NE(conclusion.root_cause.find("v2.3.1"), std::string::npos) << conclusion.root_cause;
  EXPECT_NE(conclusion.root_cause.find("指标印证：hikaricp_connections_active"), std::string::npos)
      << conclusion.root_cause;
  std::string call = CallsOf(conversation, "query_metrics").at(0).id;
  bool cited = false;
  for (const auto& c : conclusion.evidence) {
    cited |= c.tool_call_id == call && c.quote == SummaryOf(kPaymentPool, PaymentPool);
  }
  EXPECT_TRUE(cited) << answer.content;
  EXPECT_LE(conversation.Calls().size(), kMaxToolCalls);
}

TEST(MetricsDraft, AnEnglishDraftTellsTheSignalInEnglish) {
  Conversation conversation("Why has order-service been returning 500 errors since about 10:00?",
                            {"gateway", "order-service", "payment-db", "payment-service"},
                            {"orders"}, true);
  conversation.Offer(MetricsTool(true));
  Workspace workspace;
  workspace.metrics = DemoMetrics;
  Message answer = conversation.Play(workspace);
  EXPECT_NE(answer.content.find("hikaricp_connections_active (pool=HikariPool-1, "
                                "service=payment-service) (saturation) rose from about 3 to 20 "
                                "from 2026-11-29 10:03:00, reaching its limit of 20, as the "
                                "failure began (2026-11-29 10:02:05)."),
            std::string::npos)
      << answer.content;
}

TEST(MetricsDraft, WithoutMetricsTheSameRunIsUnchanged) {
  // The same workspace without query_metrics: the conclusion has no
  // metrics in it, and the offered tool is the only difference.
  Conversation plain(kQuestion);
  Workspace workspace;
  workspace.release = true;
  Message answer = plain.Play(workspace);
  auto draft = agent::ParseDraft(answer.content);
  ASSERT_TRUE(draft && draft->conclusion) << answer.content;
  EXPECT_EQ(draft->conclusion->root_cause.find("指标"), std::string::npos);
  EXPECT_EQ(answer.content.find("query_metrics"), std::string::npos);
}

// --- over a real Prometheus ------------------------------------------------------

// query_metrics as the model sees it, answered by the real client from a
// real Prometheus serving the demo's recording, at the demo's clock.
class RealMetrics {
 public:
  explicit RealMetrics(const std::string& url) : client_(Settings(url), SystemClock::Instance()) {}

  std::string operator()(const ToolCall& call) {
    auto arguments = json::Parse(call.arguments);
    const bj::value* input = arguments && arguments->is_object()
                                 ? arguments->as_object().if_contains("input")
                                 : nullptr;
    if (input == nullptr || !input->is_object()) return R"({"error_code":"INVALID_TOOL_INPUT"})";
    auto request = tools::metrics::ParseInput(input->as_object(), client_.rules());
    if (!request) return R"({"error_code":"INVALID_TOOL_INPUT"})";
    auto out = client_.Query(*request, *ParseRfc3339("2026-11-29T10:30:00Z"),
                             SystemClock::Instance().Monotonic() + std::chrono::seconds(20));
    if (!out) {
      return json::Serialize(bj::object{{"tool_call_id", "$ID"},
                                        {"evidence_status", "ERROR"},
                                        {"error_code", "QUERY_FAILED"},
                                        {"message", out.error().message}});
    }
    const auto& result = out->result;
    bj::array series;
    for (const auto& s : result.series) {
      bj::object labels;
      for (const auto& [key, value] : s.labels) labels[key] = value;
      bj::array points;
      for (const auto& point : s.points) points.push_back(bj::array{bj::value(point.time), bj::value(point.value)});
      series.push_back(bj::object{{"labels", labels}, {"summary", s.summary}, {"points", points}});
      summaries.push_back(s.summary);
    }
    return json::Serialize(bj::object{
        {"tool_call_id", "$ID"},
        {"query", result.query},
        {"lookback_minutes", result.lookback_minutes},
        {"step_seconds", result.step_seconds},
        {"evidence_status", result.series.empty() ? "NO_EVIDENCE" : "EVIDENCE_FOUND"},
        {"series", series},
        {"truncated", result.truncated}});
  }

  std::vector<std::string> summaries;  // every summary line returned

 private:
  static tools::metrics::MetricsSettings Settings(const std::string& url) {
    tools::metrics::MetricsSettings settings;
    settings.url = url;
    return settings;
  }
  tools::metrics::PrometheusClient client_;
};

TEST(MetricsOverPrometheus, TheDemoRecordingCorroboratesTheRelease) {
  auto recording = diagd::testing::DemoMetrics();
  ASSERT_TRUE(recording) << recording.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *recording});
  RealMetrics metrics(server->url());
  Conversation conversation(kQuestion);
  conversation.Offer(MetricsTool());
  Workspace workspace;
  workspace.release = true;
  Message answer = conversation.Play([&](const ToolCall& call) {
    return call.name == "query_metrics" ? metrics(call) : workspace(call);
  });
  if (getenv("DIAGD_TRANSCRIPT")) std::cout << answer.content << "\n";
  auto draft = agent::ParseDraft(answer.content);
  ASSERT_TRUE(draft && draft->conclusion) << answer.content << "\n" << server->Log();
  auto asked = CallsOf(conversation, "query_metrics");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(InputQuery(asked[0]), R"({service=~"order-service|payment-service"})");
  // The payment pool, from the recording: cited as returned, in full.
  std::string pool;
  for (const auto& summary : metrics.summaries) {
    if (summary.starts_with(R"(hikaricp_connections_active{pool="HikariPool-1")")) pool = summary;
  }
  ASSERT_FALSE(pool.empty()) << answer.content;
  bool cited = false;
  for (const auto& c : draft->conclusion->evidence) {
    cited |= c.tool_call_id == asked[0].id && c.quote == pool;
  }
  EXPECT_TRUE(cited) << answer.content;
  EXPECT_NE(draft->conclusion->root_cause.find("指标印证：hikaricp_connections_active（pool=HikariPool-1, "
                                               "service=payment-service）饱和度"),
            std::string::npos)
      << draft->conclusion->root_cause;
  EXPECT_NE(draft->conclusion->root_cause.find("达到上限 16"), std::string::npos)
      << "the recording's hikaricp_connections_max: " << draft->conclusion->root_cause;
  // Every metrics finding quotes a summary line as returned; the order
  // pool, busy but steady, is none.
  for (const auto& finding : draft->findings) {
    if (finding.tool_call_id != asked[0].id) continue;
    std::string quote = finding.quote.value_or("");
    EXPECT_NE(std::find(metrics.summaries.begin(), metrics.summaries.end(), quote),
              metrics.summaries.end())
        << quote;
    EXPECT_EQ(quote.find("order-pool"), std::string::npos) << quote;
  }
}

}  // namespace
}  // namespace diagd::model::offline
