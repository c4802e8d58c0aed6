// The server under concurrent load and unruly clients, over real sockets:
// many chats at once against the scripted model server over HTTP (it plays
// a whole diagnosis per request; it is no model), clients that drop and
// resume their streams, and the 503s past the run queue and the
// connection limit. Nothing here asserts on speed (benchmarks measure it);
// the scripted latencies only keep runs alive long enough to overlap.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/server_fixture.h"
#include "testing/scripted_diagnosis.h"

namespace diagd::server::testing {
namespace {

using diagd::testing::kScriptedDiagnosisQuote;
using diagd::testing::ScriptedDiagnosis;
using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedReply;
using diagd::testing::ScriptedFailure;
using diagd::testing::ScriptedHangUp;
using std::chrono::milliseconds;

// A diagnosis question with the router skipped: tool_turns + 2 model calls.
constexpr const char* kDiagnosisChat =
    R"({"message":"payment-service 的支付为什么失败？","route":"diagnosis"})";
const Headers kJsonBody = {{"Content-Type", "application/json"}};

std::optional<boost::json::object> JsonObject(const std::string& text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  return value.as_object();
}

std::string StringAt(const boost::json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

// Whether `result_json` (docs/specs/release.md) is the scripted diagnosis,
// released with its quote; its run id goes to `run_id`.
::testing::AssertionResult IsScriptedDiagnosis(const std::string& result_json,
                                               std::string* run_id) {
  auto result = JsonObject(result_json);
  if (!result) return ::testing::AssertionFailure() << "not a JSON object: " << result_json;
  *run_id = StringAt(*result, "run_id");
  if (run_id->empty()) return ::testing::AssertionFailure() << "no run_id: " << result_json;
  if (StringAt(*result, "release_outcome") != "DIAGNOSIS") {
    return ::testing::AssertionFailure() << "not released as DIAGNOSIS: " << result_json;
  }
  const auto* diagnosis = result->if_contains("diagnosis");
  const auto* evidence = diagnosis != nullptr && diagnosis->is_object()
                             ? diagnosis->as_object().if_contains("evidence")
                             : nullptr;
  if (evidence == nullptr || !evidence->is_array() || evidence->as_array().size() != 1 ||
      !evidence->as_array()[0].is_object() ||
      StringAt(evidence->as_array()[0].as_object(), "quote") != kScriptedDiagnosisQuote) {
    return ::testing::AssertionFailure() << "not the scripted evidence: " << result_json;
  }
  return ::testing::AssertionSuccess();
}

std::string Render(const std::vector<SseEvent>& events) {
  std::string text;
  for (const auto& event : events) {
    text += std::to_string(event.id) + " " + event.name + " " + event.data + "\n";
  }
  return text;
}

// Whether `events` is a whole chat stream (docs/server.md) of a
// scripted diagnosis with `tool_turns` tool calls: ids 1, 2, 3...; `run`,
// `route`, each tool's `progress` STARTED then its outcome under the same
// index, `result` of that run, `done`.
::testing::AssertionResult IsWholeDiagnosisStream(const std::vector<SseEvent>& events,
                                                  int tool_turns) {
  auto failure = [&events] { return ::testing::AssertionFailure() << Render(events) << "-> "; };
  std::size_t expected = static_cast<std::size_t>(2 * tool_turns + 4);
  if (events.size() != expected) return failure() << "expected " << expected << " events";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].id != static_cast<std::int64_t>(i) + 1) return failure() << "ids not 1, 2, 3...";
  }
  auto run = JsonObject(events[0].data);
  if (events[0].name != "run" || !run || StringAt(*run, "run_id").empty() ||
      StringAt(*run, "conversation_id").empty()) {
    return failure() << "no `run` first with run_id and conversation_id";
  }
  auto route = JsonObject(events[1].data);
  if (events[1].name != "route" || !route || StringAt(*route, "route") != "DIAGNOSIS") {
    return failure() << "no `route` DIAGNOSIS second";
  }
  std::map<std::int64_t, std::vector<std::string>> statuses;  // per index, in order
  for (std::size_t i = 2; i + 2 < events.size(); ++i) {
    auto progress = JsonObject(events[i].data);
    const auto* index = progress ? progress->if_contains("index") : nullptr;
    if (events[i].name != "progress" || index == nullptr || !index->is_int64()) {
      return failure() << "event " << i + 1 << " is no `progress` with an index";
    }
    auto& seen = statuses[index->as_int64()];
    seen.push_back(StringAt(*progress, "status"));
    if (seen.size() == 1 && seen[0] != "STARTED") return failure() << "an index not STARTED first";
  }
  static const std::set<std::string> kOutcomes = {"EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR",
                                                  "REJECTED"};
  if (statuses.size() != static_cast<std::size_t>(tool_turns)) {
    return failure() << "expected " << tool_turns << " tool calls";
  }
  for (const auto& [index, seen] : statuses) {
    if (seen.size() != 2 || !kOutcomes.contains(seen[1])) {
      return failure() << "index " << index << " is not STARTED then one outcome";
    }
  }
  const SseEvent& result = events[events.size() - 2];
  std::string result_run_id;
  if (result.name != "result") return failure() << "no `result` before the end";
  if (auto scripted = IsScriptedDiagnosis(result.data, &result_run_id); !scripted) {
    return failure() << scripted.message();
  }
  if (result_run_id != StringAt(*run, "run_id")) return failure() << "the result of another run";
  if (events.back().name != "done") return failure() << "no `done` last";
  return ::testing::AssertionSuccess();
}

std::string RunIdOf(const std::vector<SseEvent>& events) {
  if (events.empty() || events[0].name != "run") return "";
  auto run = JsonObject(events[0].data);
  return run ? StringAt(*run, "run_id") : "";
}

// The value of one series of the /metrics text, e.g.
// `diagd_chat_rejected_total{reason="OVERLOADED"}`; nullopt when absent.
std::optional<std::int64_t> MetricValue(const std::string& metrics, const std::string& series) {
  std::string prefix = "\n" + series + " ";
  std::size_t at = metrics.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  return std::atoll(metrics.c_str() + at + prefix.size());
}

::testing::AssertionResult IsStoredSucceeded(app::RunStore& runs, const std::string& run_id) {
  auto run = runs.GetRun(run_id);
  if (!run) return ::testing::AssertionFailure() << run_id << ": " << run.error().message;
  if (!run->has_value()) return ::testing::AssertionFailure() << run_id << ": not stored";
  const app::RunRecord& record = **run;
  if (record.status != "SUCCEEDED" || record.result_json.empty()) {
    return ::testing::AssertionFailure()
           << run_id << ": stored " << record.status << " with result '" << record.result_json
           << "'";
  }
  return ::testing::AssertionSuccess();
}

FixtureOptions ScriptedOptions(const ScriptedModelServer& model) {
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  return options;
}

TEST(ServerConcurrency, TwoHundredConcurrentChatsAllCompleteCorrectly) {
  constexpr int kClients = 200;  // half stream SSE, half wait for the JSON
  constexpr int kToolTurns = 2;
  ScriptedModelServer model(ScriptedDiagnosis(kToolTurns, milliseconds(500)));
  model.set_record_requests(false);
  FixtureOptions options = ScriptedOptions(model);
  options.max_concurrent_runs = kClients;
  ServerFixture server(options);

  struct Outcome {
    std::string run_id;
    ::testing::AssertionResult ok = ::testing::AssertionFailure() << "never ran";
  };
  std::vector<Outcome> outcomes(kClients);
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&server, &outcome = outcomes[client], sse = client % 2 == 0] {
      if (sse) {
        SseStream stream(server.port(), "POST", "/api/v1/chat", kJsonBody, kDiagnosisChat);
        if (stream.status() != 200) {
          outcome.ok = ::testing::AssertionFailure() << "SSE status " << stream.status();
          return;
        }
        auto events = stream.Rest();
        outcome.run_id = RunIdOf(events);
        outcome.ok = IsWholeDiagnosisStream(events, kToolTurns);
      } else {
        HttpReply reply = server.PostChat(kDiagnosisChat);
        if (reply.status != 200) {
          outcome.ok = ::testing::AssertionFailure()
                       << "JSON status " << reply.status << ": " << reply.body;
          return;
        }
        outcome.ok = IsScriptedDiagnosis(reply.body, &outcome.run_id);
      }
    });
  }
  for (auto& client : clients) client.join();

  int failed = 0;
  std::set<std::string> run_ids;
  for (int client = 0; client < kClients; ++client) {
    const Outcome& outcome = outcomes[client];
    if (!outcome.ok && ++failed <= 3) {  // the first few tell the story
      ADD_FAILURE() << "client " << client << (client % 2 == 0 ? " (SSE): " : " (JSON): ")
                    << outcome.ok.message();
    }
    if (!outcome.run_id.empty()) run_ids.insert(outcome.run_id);
  }
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(run_ids.size(), static_cast<std::size_t>(kClients)) << "run ids must be distinct";

  ASSERT_TRUE(server.WaitIdle());
  int not_stored = 0;
  for (const auto& run_id : run_ids) {
    auto stored = IsStoredSucceeded(server.runs(), run_id);
    if (!stored && ++not_stored <= 3) ADD_FAILURE() << stored.message();
  }
  EXPECT_EQ(not_stored, 0);
  auto metrics = server.Get("/metrics");
  constexpr const char* kSucceeded =
      R"(diagd_runs_total{status="SUCCEEDED",outcome="DIAGNOSIS",fallback_code="NONE"})";
  EXPECT_EQ(MetricValue(metrics.body, kSucceeded), kClients) << metrics.body;
}

TEST(ServerConcurrency, FailedModelCallsOfConcurrentRunsAreRetriedAndEveryRunReleased) {
  // The first 10 first-turn requests fail (503 or a hang-up): on a server
  // run the transfer is parked (runtime/transfer_engine) and so is the
  // client's backoff (runtime::SleepFor); each failed call is retried once and
  // all 20 runs are released.
  constexpr int kRuns = 20;
  constexpr int kFailures = kRuns / 2;
  auto script = ScriptedDiagnosis(1, milliseconds(50));
  std::atomic<int> first_turns{0};
  ScriptedModelServer model([&](const ScriptedModelServer::RecordedRequest& request) {
    // A run's first diagnosis turn: the agent's request with no assistant
    // turn yet.
    auto component = request.headers.find("x-diagd-component");
    bool first = component != request.headers.end() && component->second == "DIAGNOSIS_AGENT" &&
                 request.body.find(R"("role":"assistant")") == std::string::npos;
    int n = first ? ++first_turns : 0;
    if (first && n <= kFailures) {
      return n % 2 == 0 ? ScriptedReply{ScriptedFailure{503, "overloaded"}, {}}
                        : ScriptedReply{ScriptedHangUp{}, {}};
    }
    return script(request);
  });
  ServerFixture server(ScriptedOptions(model));
  std::vector<HttpReply> replies(kRuns);
  std::vector<std::thread> clients;
  for (int i = 0; i < kRuns; ++i) {
    clients.emplace_back([&, i] { replies[i] = server.PostChat(kDiagnosisChat); });
  }
  for (auto& client : clients) client.join();
  for (const auto& reply : replies) {
    std::string run_id;
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_TRUE(IsScriptedDiagnosis(reply.body, &run_id));
  }
  EXPECT_EQ(first_turns.load(), kRuns + kFailures) << "each failed call retried once";
}

TEST(ServerConcurrency, AClientThatDisconnectsMidStreamDoesNotLoseTheRun) {
  ScriptedModelServer model(ScriptedDiagnosis(2, milliseconds(200)));
  ServerFixture server(ScriptedOptions(model));

  std::string run_id;
  bool dropped_at_progress = false;
  {
    SseStream stream(server.port(), "POST", "/api/v1/chat", kJsonBody, kDiagnosisChat);
    ASSERT_EQ(stream.status(), 200);
    while (auto event = stream.Next()) {
      if (event->name == "run") run_id = RunIdOf({*event});
      if (event->name == "progress") {
        dropped_at_progress = true;
        break;
      }
    }
    stream.Close();
  }
  ASSERT_FALSE(run_id.empty());
  ASSERT_TRUE(dropped_at_progress) << "the stream ended before any progress";

  ASSERT_TRUE(server.WaitIdle());
  EXPECT_TRUE(IsStoredSucceeded(server.runs(), run_id));
  HttpReply replay = server.Get("/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(replay.status, 200) << replay.body;
  auto events = ParseSse(replay.body);
  EXPECT_TRUE(IsWholeDiagnosisStream(events, 2));
  EXPECT_EQ(RunIdOf(events), run_id);
}

TEST(ServerConcurrency, AReconnectingClientResumesALiveRunWithLastEventId) {
  // 5 model calls of 400 ms: after the third event (the first tool call,
  // some 400 ms in) the run has more than a second to go.
  constexpr int kToolTurns = 3;
  ScriptedModelServer model(ScriptedDiagnosis(kToolTurns, milliseconds(400)));
  ServerFixture server(ScriptedOptions(model));

  std::vector<SseEvent> seen;
  {
    SseStream stream(server.port(), "POST", "/api/v1/chat", kJsonBody, kDiagnosisChat);
    ASSERT_EQ(stream.status(), 200);
    for (int i = 0; i < 3; ++i) {
      auto event = stream.Next();
      ASSERT_TRUE(event.has_value()) << "the stream ended after " << i << " events";
      seen.push_back(*event);
    }
    stream.Close();
  }
  std::string run_id = RunIdOf(seen);
  ASSERT_FALSE(run_id.empty()) << Render(seen);
  auto running = server.runs().GetRun(run_id);
  ASSERT_TRUE(running && running->has_value());
  ASSERT_EQ((**running).status, "RUNNING") << "the run ended before the client came back: the "
                                              "scripted model must be slower for this test";

  SseStream resumed(server.port(), "GET", "/api/v1/runs/" + run_id + "/events",
                    {{"Last-Event-ID", "3"}});
  ASSERT_EQ(resumed.status(), 200);
  auto rest = resumed.Rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.front().id, 4) << Render(rest);
  seen.insert(seen.end(), rest.begin(), rest.end());
  EXPECT_TRUE(IsWholeDiagnosisStream(seen, kToolTurns));

  // What the client pieced together is exactly the stored stream.
  ASSERT_TRUE(server.WaitIdle());
  HttpReply stored = server.Get("/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(stored.status, 200);
  EXPECT_EQ(Render(ParseSse(stored.body)), Render(seen));
}

TEST(ServerConcurrency, PastTheQueueTheServerAnswers503WithRetryAfter) {
  ScriptedModelServer model(ScriptedDiagnosis(1, milliseconds(600)));
  FixtureOptions options = ScriptedOptions(model);
  options.max_concurrent_runs = 1;
  options.max_queued_runs = 1;
  ServerFixture server(options);

  // The SSE head comes once the run is admitted: the first runs, the
  // second waits in the queue, and the third finds no room.
  SseStream running(server.port(), "POST", "/api/v1/chat", kJsonBody, kDiagnosisChat);
  ASSERT_EQ(running.status(), 200);
  SseStream queued(server.port(), "POST", "/api/v1/chat", kJsonBody, kDiagnosisChat);
  ASSERT_EQ(queued.status(), 200);
  HttpReply refused = server.PostChat(kDiagnosisChat);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_TRUE(refused.headers.contains("retry-after"));
  auto body = JsonObject(refused.body);
  ASSERT_TRUE(body && body->contains("error")) << refused.body;
  EXPECT_EQ(body->at("error").at("code"), "OVERLOADED");
  EXPECT_TRUE(body->at("error").at("message").is_string());

  EXPECT_TRUE(IsWholeDiagnosisStream(running.Rest(), 1));
  EXPECT_TRUE(IsWholeDiagnosisStream(queued.Rest(), 1));
  ASSERT_TRUE(server.WaitIdle());
  auto metrics = server.Get("/metrics");
  EXPECT_EQ(MetricValue(metrics.body, R"(diagd_chat_rejected_total{reason="OVERLOADED"})"), 1)
      << metrics.body;
}

// A client connection held open and idle, closed when it goes.
class HeldConnection {
 public:
  // Connects and asks GET /healthz with keep-alive: once the answer is in,
  // the server counts the connection (a connection that sent nothing may
  // not be accepted yet when the next client comes).
  explicit HeldConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
    std::string request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      return;
    }
    char chunk[4096];
    while (answer_.find(R"("store":)") == std::string::npos) {
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);  // the server answers at once
      if (n <= 0) return;
      answer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  ~HeldConnection() { Close(); }
  HeldConnection(const HeldConnection&) = delete;
  HeldConnection& operator=(const HeldConnection&) = delete;

  const std::string& answer() const { return answer_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::string answer_;
};

TEST(ServerConcurrency, AtTheConnectionLimitTheLongestIdleConnectionMakesRoom) {
  FixtureOptions options;  // the offline provider: no run is asked for
  options.max_connections = 2;
  ServerFixture server(options);

  HeldConnection first(server.port());
  HeldConnection second(server.port());
  ASSERT_TRUE(first.answer().starts_with("HTTP/1.1 200")) << first.answer();
  ASSERT_TRUE(second.answer().starts_with("HTTP/1.1 200")) << second.answer();
  ASSERT_EQ(first.answer().find("Connection: close"), std::string::npos) << "kept alive";

  // Both are idle between requests: a newcomer is served, not refused
  // (http_hostile_test has the 503 when no connection is idle).
  HttpReply served = server.Get("/api/v1/runs");
  EXPECT_EQ(served.status, 200) << served.body;
  first.Close();
  second.Close();  // before the fixture's own requests at teardown
}

}  // namespace
}  // namespace diagd::server::testing
