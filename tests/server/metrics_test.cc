// ServerMetrics: what a finished run record, a refused chat and an answered
// request turn into on GET /metrics, and that the output is valid Prometheus
// text format 0.0.4.
#include "server/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace diagd::server {
namespace {

using harness::TraceEvent;
using harness::TraceEventType;
using harness::TraceField;

TraceEvent Event(TraceEventType type, std::vector<TraceField> fields) {
  TraceEvent event;
  event.type = type;
  event.fields = std::move(fields);
  return event;
}

TraceEvent ModelCall(const std::string& component, std::int64_t input, std::int64_t output) {
  return Event(TraceEventType::kModelCall, {{"component", component},
                                            {"component_round", std::int64_t{1}},
                                            {"usage_available", true},
                                            {"input_tokens", input},
                                            {"output_tokens", output},
                                            {"total_tokens", input + output}});
}

TraceEvent ModelCallWithoutUsage(const std::string& component) {
  return Event(
      TraceEventType::kModelCall,
      {{"component", component}, {"component_round", std::int64_t{1}}, {"usage_available", false}});
}

TraceEvent ToolCall(const std::string& tool, const std::string& evidence_status) {
  return Event(TraceEventType::kToolCallCompleted, {{"tool_call_id", std::string("call_1")},
                                                    {"tool", tool},
                                                    {"scope_summary", std::string("s")},
                                                    {"evidence_status", evidence_status},
                                                    {"returned_count", std::int64_t{3}},
                                                    {"truncated", false},
                                                    {"duration_ms", std::int64_t{12}}});
}

TraceEvent Rejection(const std::string& error_code) {
  return Event(TraceEventType::kToolRequestRejected, {{"tool_call_id", std::string("call_2")},
                                                      {"tool", std::string("query_logs")},
                                                      {"error_code", error_code}});
}

app::RunRecord DiagnosisRun() {
  app::RunRecord run;
  run.run_id = "run_1";
  run.route = "DIAGNOSIS";
  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.release_outcome = "DIAGNOSIS";
  run.trace = {Event(TraceEventType::kRunStarted, {{"route", std::string("DIAGNOSIS")}}),
               ModelCall("ROUTER", 100, 20),
               ModelCall("DIAGNOSIS_AGENT", 400, 50),
               ToolCall("search_documents", "EVIDENCE_FOUND"),
               ToolCall("query_logs", "NO_EVIDENCE"),
               Rejection("DUPLICATE_SCOPE"),
               ModelCall("DIAGNOSIS_AGENT", 600, 70),
               ToolCall("search_documents", "EVIDENCE_FOUND"),
               ModelCallWithoutUsage("SEMANTIC_GUARD"),
               Event(TraceEventType::kRunFinished, {{"status", std::string("SUCCEEDED")}})};
  return run;
}

app::RunRecord FallbackRun() {
  app::RunRecord run;
  run.run_id = "run_2";
  run.status = "FAILED";
  run.release_outcome = "FALLBACK";
  run.fallback_code = "FAILED";
  run.trace = {ModelCall("DIAGNOSIS_AGENT", 10, 5), Rejection("COLLECTION_STOPPED")};
  run.failure_reason = "MODEL_HTTP_ERROR";
  run.model_failures = {{"ROUTER", "MODEL_UNREACHABLE"}, {"DIAGNOSIS_AGENT", "MODEL_HTTP_ERROR"}};
  return run;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The sample lines of one family (its name followed by `{` or a space; for a
// histogram also _bucket/_sum/_count), one per line: what tests compare.
std::string Samples(const std::string& rendered, const std::string& family) {
  std::string out;
  for (const auto& line : Lines(rendered)) {
    if (line.starts_with("#")) continue;
    std::string name = line.substr(0, line.find_first_of("{ "));
    if (name == family || name == family + "_bucket" || name == family + "_sum" ||
        name == family + "_count") {
      out += line + "\n";
    }
  }
  return out;
}

TEST(ServerMetricsTest, FinishedRunRendersSeriesDerivedFromItsRecord) {
  ServerMetrics metrics;
  metrics.RecordFinishedRun(DiagnosisRun(), 2.0);
  metrics.RecordFinishedRun(FallbackRun(), 1.0);
  metrics.RecordFinishedRun(DiagnosisRun(), 3.0);
  std::string out = metrics.Render({});

  EXPECT_EQ(
      "diagd_runs_total{status=\"FAILED\",outcome=\"FALLBACK\",fallback_code=\"FAILED\"} 1\n"
      "diagd_runs_total{status=\"SUCCEEDED\",outcome=\"DIAGNOSIS\",fallback_code=\"NONE\"} 2\n",
      Samples(out, "diagd_runs_total"));
  EXPECT_EQ(
      "diagd_tool_calls_total{tool=\"query_logs\",status=\"NO_EVIDENCE\"} 2\n"
      "diagd_tool_calls_total{tool=\"search_documents\",status=\"EVIDENCE_FOUND\"} 4\n",
      Samples(out, "diagd_tool_calls_total"));
  EXPECT_EQ(
      "diagd_tool_requests_rejected_total{error_code=\"COLLECTION_STOPPED\"} 1\n"
      "diagd_tool_requests_rejected_total{error_code=\"DUPLICATE_SCOPE\"} 2\n",
      Samples(out, "diagd_tool_requests_rejected_total"));
  EXPECT_EQ(
      "diagd_model_calls_total{component=\"DIAGNOSIS_AGENT\"} 5\n"
      "diagd_model_calls_total{component=\"ROUTER\"} 2\n"
      "diagd_model_calls_total{component=\"SEMANTIC_GUARD\"} 2\n",
      Samples(out, "diagd_model_calls_total"));
  EXPECT_EQ(
      "diagd_model_failures_total{component=\"DIAGNOSIS_AGENT\",reason=\"MODEL_HTTP_ERROR\"} 1\n"
      "diagd_model_failures_total{component=\"ROUTER\",reason=\"MODEL_UNREACHABLE\"} 1\n",
      Samples(out, "diagd_model_failures_total"));
  // SEMANTIC_GUARD reported no usage, so it has calls but no token series.
  EXPECT_EQ(
      "diagd_model_tokens_total{component=\"DIAGNOSIS_AGENT\",kind=\"input\"} 2010\n"
      "diagd_model_tokens_total{component=\"DIAGNOSIS_AGENT\",kind=\"output\"} 245\n"
      "diagd_model_tokens_total{component=\"DIAGNOSIS_AGENT\",kind=\"total\"} 2255\n"
      "diagd_model_tokens_total{component=\"ROUTER\",kind=\"input\"} 200\n"
      "diagd_model_tokens_total{component=\"ROUTER\",kind=\"output\"} 40\n"
      "diagd_model_tokens_total{component=\"ROUTER\",kind=\"total\"} 240\n",
      Samples(out, "diagd_model_tokens_total"));
  EXPECT_NE(out.find("diagd_run_duration_seconds_sum 6\ndiagd_run_duration_seconds_count 3\n"),
            std::string::npos);
}

TEST(ServerMetricsTest, AbsentTraceFieldsCountAsUnknown) {
  app::RunRecord run;
  run.status = "FAILED";
  run.fallback_code = "";  // empty is as absent as missing
  run.trace = {Event(TraceEventType::kToolCallCompleted, {{"tool", std::int64_t{7}}}),
               Event(TraceEventType::kModelCall, {{"input_tokens", std::int64_t{-5}}})};
  ServerMetrics metrics;
  metrics.RecordFinishedRun(run, 0.5);
  std::string out = metrics.Render({});
  EXPECT_EQ("diagd_runs_total{status=\"FAILED\",outcome=\"NONE\",fallback_code=\"NONE\"} 1\n",
            Samples(out, "diagd_runs_total"));
  EXPECT_EQ("diagd_tool_calls_total{tool=\"UNKNOWN\",status=\"UNKNOWN\"} 1\n",
            Samples(out, "diagd_tool_calls_total"));
  EXPECT_EQ("diagd_model_calls_total{component=\"UNKNOWN\"} 1\n",
            Samples(out, "diagd_model_calls_total"));
  EXPECT_EQ("", Samples(out, "diagd_model_tokens_total")) << "negative counts are ignored";
}

TEST(ServerMetricsTest, RejectedChatsAndHttpRequestsAreCountedByLabel) {
  ServerMetrics metrics;
  metrics.RecordRejectedChat("OVERLOADED");
  metrics.RecordRejectedChat("SHUTTING_DOWN");
  metrics.RecordRejectedChat("OVERLOADED");
  metrics.RecordHttpRequest("/api/v1/runs/{id}", 404);
  metrics.RecordHttpRequest("/api/v1/chat", 200);
  metrics.RecordHttpRequest("/api/v1/runs/{id}", 200);
  metrics.RecordHttpRequest("/api/v1/chat", 200);
  std::string out = metrics.Render({});
  EXPECT_EQ(
      "diagd_chat_rejected_total{reason=\"OVERLOADED\"} 2\n"
      "diagd_chat_rejected_total{reason=\"SHUTTING_DOWN\"} 1\n",
      Samples(out, "diagd_chat_rejected_total"));
  EXPECT_EQ(
      "diagd_http_requests_total{route=\"/api/v1/chat\",code=\"200\"} 2\n"
      "diagd_http_requests_total{route=\"/api/v1/runs/{id}\",code=\"200\"} 1\n"
      "diagd_http_requests_total{route=\"/api/v1/runs/{id}\",code=\"404\"} 1\n",
      Samples(out, "diagd_http_requests_total"));
}

TEST(ServerMetricsTest, EscapesBackslashQuoteAndNewlineInLabelValues) {
  ServerMetrics metrics;
  metrics.RecordHttpRequest("/a\"b\\c\nd", 200);
  metrics.RecordRejectedChat("x\xff");  // invalid UTF-8 becomes U+FFFD
  std::string out = metrics.Render({});
  EXPECT_EQ("diagd_http_requests_total{route=\"/a\\\"b\\\\c\\nd\",code=\"200\"} 1\n",
            Samples(out, "diagd_http_requests_total"));
  EXPECT_EQ("diagd_chat_rejected_total{reason=\"x\xEF\xBF\xBD\"} 1\n",
            Samples(out, "diagd_chat_rejected_total"));
}

TEST(ServerMetricsTest, BoundsLabelValueLengthAndSeriesCount) {
  ServerMetrics metrics;
  metrics.RecordRejectedChat(std::string(1000, 'r'));
  std::size_t extra = 20;
  for (std::size_t i = 0; i < ServerMetrics::kMaxSeriesPerFamily + extra; ++i) {
    metrics.RecordHttpRequest("/raw/" + std::to_string(i), 200);
  }
  metrics.RecordHttpRequest("/raw/0", 200);  // a known series still counts as itself
  std::string out = metrics.Render({});
  EXPECT_EQ("diagd_chat_rejected_total{reason=\"" +
                std::string(ServerMetrics::kMaxLabelValueChars, 'r') + "\"} 1\n",
            Samples(out, "diagd_chat_rejected_total"));
  std::vector<std::string> http = Lines(Samples(out, "diagd_http_requests_total"));
  EXPECT_EQ(ServerMetrics::kMaxSeriesPerFamily + 1, http.size());
  EXPECT_NE(out.find("diagd_http_requests_total{route=\"OTHER\",code=\"OTHER\"} 20\n"),
            std::string::npos);
  EXPECT_NE(out.find("diagd_http_requests_total{route=\"/raw/0\",code=\"200\"} 2\n"),
            std::string::npos);
}

TEST(ServerMetricsTest, HistogramBucketsAreCumulativeWithCountAndSum) {
  ServerMetrics metrics;
  app::RunRecord run = FallbackRun();
  for (double seconds : {0.125, 0.25, 3.0, 400.0, -1.0}) metrics.RecordFinishedRun(run, seconds);
  EXPECT_EQ(
      "diagd_run_duration_seconds_bucket{le=\"0.25\"} 3\n"
      "diagd_run_duration_seconds_bucket{le=\"0.5\"} 3\n"
      "diagd_run_duration_seconds_bucket{le=\"1\"} 3\n"
      "diagd_run_duration_seconds_bucket{le=\"2.5\"} 3\n"
      "diagd_run_duration_seconds_bucket{le=\"5\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"10\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"30\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"60\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"120\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"300\"} 4\n"
      "diagd_run_duration_seconds_bucket{le=\"+Inf\"} 5\n"
      "diagd_run_duration_seconds_sum 403.375\n"
      "diagd_run_duration_seconds_count 5\n",
      Samples(metrics.Render({}), "diagd_run_duration_seconds"))
      << "the negative duration counts as 0";
}

TEST(ServerMetricsTest, FreshMetricsRenderEveryFamilyInAStableOrder) {
  ServerMetrics metrics;
  std::string out = metrics.Render(
      {.runs_running = 3, .runs_queued = 4, .connections_open = 5, .sse_streams_open = 6});
  std::vector<std::string> types;
  for (const auto& line : Lines(out)) {
    if (line.starts_with("# TYPE ")) types.push_back(line.substr(7));
  }
  EXPECT_EQ((std::vector<std::string>{
                "diagd_runs_total counter", "diagd_run_duration_seconds histogram",
                "diagd_runs_running gauge", "diagd_run_queue_depth gauge",
                "diagd_chat_rejected_total counter", "diagd_tool_calls_total counter",
                "diagd_tool_requests_rejected_total counter", "diagd_model_calls_total counter",
                "diagd_model_failures_total counter", "diagd_model_tokens_total counter", "diagd_http_requests_total counter",
                "diagd_http_connections_open gauge", "diagd_sse_streams_open gauge",
                "diagd_run_store_failing gauge", "diagd_run_store_errors_total counter",
                "diagd_runs_unstored gauge", "diagd_runs_lost_total counter"}),
            types);
  EXPECT_EQ("diagd_runs_running 3\n", Samples(out, "diagd_runs_running"));
  EXPECT_EQ("diagd_run_queue_depth 4\n", Samples(out, "diagd_run_queue_depth"));
  EXPECT_EQ("diagd_http_connections_open 5\n", Samples(out, "diagd_http_connections_open"));
  EXPECT_EQ("diagd_sse_streams_open 6\n", Samples(out, "diagd_sse_streams_open"));
  EXPECT_NE(out.find("diagd_run_duration_seconds_bucket{le=\"+Inf\"} 0\n"
                     "diagd_run_duration_seconds_sum 0\n"
                     "diagd_run_duration_seconds_count 0\n"),
            std::string::npos);
  EXPECT_EQ("", Samples(out, "diagd_runs_total"));
}

// Checks the text format 0.0.4 line by line: HELP then TYPE once per family,
// and every sample belongs to the family declared just above it.
void ExpectValidExposition(const std::string& out) {
  const std::string name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  const std::string label = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  const std::string value = "[+-]?(?:Inf|NaN|[0-9]+(?:\\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)";
  const std::regex help_re("# HELP (" + name + ") [^\\n]*");
  const std::regex type_re("# TYPE (" + name + ") (counter|gauge|histogram|summary|untyped)");
  const std::regex sample_re("(" + name + ")(?:\\{" + label + "(?:," + label + ")*\\})? " + value);

  ASSERT_FALSE(out.empty());
  EXPECT_EQ('\n', out.back());
  std::vector<std::string> families;
  std::string help_of, family, type;
  for (const auto& line : Lines(out)) {
    std::smatch match;
    if (std::regex_match(line, match, help_re)) {
      help_of = match[1];
    } else if (std::regex_match(line, match, type_re)) {
      EXPECT_EQ(help_of, match[1]) << "HELP precedes TYPE: " << line;
      family = match[1];
      type = match[2];
      families.push_back(family);
    } else if (std::regex_match(line, match, sample_re)) {
      std::string sample = match[1];
      bool belongs = sample == family || (type == "histogram" && (sample == family + "_bucket" ||
                                                                  sample == family + "_sum" ||
                                                                  sample == family + "_count"));
      EXPECT_TRUE(belongs) << "sample outside its family: " << line;
    } else {
      ADD_FAILURE() << "not a text-format line: " << line;
    }
  }
  std::vector<std::string> unique = families;
  std::sort(unique.begin(), unique.end());
  EXPECT_EQ(std::unique(unique.begin(), unique.end()), unique.end()) << "a family repeats";
  for (const auto& f : families) EXPECT_TRUE(f.starts_with("diagd_")) << f;
}

TEST(ServerMetricsTest, FreshRenderIsValidTextFormat) {
  ExpectValidExposition(ServerMetrics().Render({}));
}

TEST(ServerMetricsTest, BusyRenderIsValidTextFormatWithDiagdNames) {
  ServerMetrics metrics;
  metrics.RecordFinishedRun(DiagnosisRun(), 12.5);
  metrics.RecordFinishedRun(FallbackRun(), 1e9);
  metrics.RecordHttpRequest("/quote\"back\\slash\nnewline", 503);
  metrics.RecordRejectedChat("OVERLOADED");
  std::string out = metrics.Render({.runs_running = -1});
  ExpectValidExposition(out);
  for (const auto& line : Lines(out)) {
    if (!line.starts_with("#")) {
      EXPECT_TRUE(line.starts_with("diagd_")) << line;
    }
  }
}

TEST(ServerMetricsTest, ConcurrentRecordingSumsExactly) {
  constexpr int kThreads = 8;
  constexpr int kRunsPerThread = 250;
  ServerMetrics metrics;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) metrics.Render({});
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        metrics.RecordFinishedRun(DiagnosisRun(), 0.5);
        metrics.RecordHttpRequest("/api/v1/chat", 200);
      }
    });
  }
  for (auto& writer : writers) writer.join();
  done = true;
  reader.join();

  constexpr int kRuns = kThreads * kRunsPerThread;
  std::string out = metrics.Render({});
  auto has = [&](const std::string& line) { return out.find(line + "\n") != std::string::npos; };
  EXPECT_TRUE(
      has("diagd_runs_total{status=\"SUCCEEDED\",outcome=\"DIAGNOSIS\",fallback_code=\"NONE\"} " +
          std::to_string(kRuns)));
  EXPECT_TRUE(has("diagd_tool_calls_total{tool=\"search_documents\",status=\"EVIDENCE_FOUND\"} " +
                  std::to_string(2 * kRuns)));
  EXPECT_TRUE(has("diagd_model_tokens_total{component=\"DIAGNOSIS_AGENT\",kind=\"total\"} " +
                  std::to_string(1120 * kRuns)));
  EXPECT_TRUE(has("diagd_http_requests_total{route=\"/api/v1/chat\",code=\"200\"} " +
                  std::to_string(kRuns)));
  EXPECT_TRUE(has("diagd_run_duration_seconds_count " + std::to_string(kRuns)));
  EXPECT_TRUE(has("diagd_run_duration_seconds_sum " + std::to_string(kRuns / 2)));
}

}  // namespace
}  // namespace diagd::server
