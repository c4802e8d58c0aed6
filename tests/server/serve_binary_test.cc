// `diagd serve` as a process: started with a configuration in a temp folder
// (the demo workspace's tools, the scripted model server over HTTP: it
// plays a whole diagnosis per request, it is no model), driven over real
// sockets, stopped with SIGTERM. Checks the graceful shutdown (runs that
// finish within the grace period, runs abandoned past it), the exit
// status, the stored runs and the structured log on stderr.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "server/test_client.h"
#include "testing/child_process.h"
#include "testing/free_port.h"
#include "testing/prometheus_server.h"
#include "testing/proc_status.h"
#include "testing/scripted_diagnosis.h"
#include "wiring/run_store.h"

namespace diagd::server::testing {
namespace {

namespace fs = std::filesystem;
using diagd::testing::kScriptedDiagnosisQuote;
using diagd::testing::FreeLoopbackPort;
using diagd::testing::ProcStatus;
using diagd::testing::ScriptedDiagnosis;
using diagd::testing::ScriptedAnswer;
using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedReply;
using diagd::testing::ScriptedToolCalls;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The question is never logged: a marker makes it easy to look for.
constexpr const char* kQuestion = "payment-service 的支付为什么失败？ question-marker-7f3a";
constexpr const char* kMarker = "question-marker-7f3a";
const Headers kJsonBody = {{"Content-Type", "application/json"}};
// The configuration's `now` (2026-11-29T10:30:00Z) in Unix seconds.
constexpr std::int64_t kNowSeconds = 1795948200;

std::string DiagnosisChat() {
  boost::json::object chat{{"message", kQuestion}, {"route", "diagnosis"}};
  return boost::json::serialize(chat);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The structured log's lines, each parsed; a line that is not a JSON
// object fails the test.
std::vector<boost::json::object> LogLines(const std::string& log) {
  std::vector<boost::json::object> lines;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    boost::system::error_code ec;
    auto value = boost::json::parse(line, ec);
    if (ec || !value.is_object()) {
      ADD_FAILURE() << "not a JSON log line: " << line;
      continue;
    }
    lines.push_back(value.as_object());
  }
  return lines;
}

std::vector<boost::json::object> LinesOf(const std::vector<boost::json::object>& lines,
                                         std::string_view event) {
  std::vector<boost::json::object> matching;
  for (const auto& line : lines) {
    const auto* name = line.if_contains("event");
    if (name != nullptr && name->is_string() && name->as_string() == event) {
      matching.push_back(line);
    }
  }
  return matching;
}

std::string RunIdOf(const SseEvent& run_event) {
  boost::system::error_code ec;
  auto data = boost::json::parse(run_event.data, ec);
  if (ec || !data.is_object() || !data.as_object().contains("run_id")) return "";
  return std::string(data.at("run_id").as_string());
}

class ServeBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("diagd-serve-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  void TearDown() override {
    if (pid_ > 0) {  // a test that failed before the server ended
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }

  fs::path config_path() const { return dir_ / "diagd.toml"; }
  std::string Log() const { return ReadFile(dir_ / "serve.err"); }

  void WriteConfig(const std::string& model_base_url, const std::string& server_section) {
    std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
    std::ofstream(config_path())
        << "now = \"2026-11-29T10:30:00Z\"\n"
        << "[server]\n" << server_section
        << "[storage]\nruns = \"sqlite:" << (dir_ / "runs.db").string() << "\"\n"
        << "[model]\nprovider = \"openai\"\nbase_url = \"" << model_base_url << "\"\n"
        << "name = \"scripted\"\ntimeout_seconds = 60\n"
        << "[tools.documents]\npath = \"" << demo << "/docs\"\ncache_path = \""
        << (dir_ / "cache").string() << "\"\n"
        << "[tools.logs]\npath = \"" << demo << "/logs\"\n"
        << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n";
  }

  // Runs the binary with `args`, stdout and stderr to files; returns its pid.
  pid_t Spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
    // Everything the child needs is made before fork: after it, only
    // async-signal-safe calls (this process has threads).
    std::vector<std::string> argv_strings{DIAGD_BINARY};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_strings) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string out_path = out.string(), err_path = err.string();
    pid_t pid = ::fork();
    if (pid == 0) {
      int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out_fd < 0 || err_fd < 0) ::_exit(127);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(err_fd, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // The exit status of a finished child (-1 when it did not exit normally),
  // or nullopt while it still runs after `timeout`.
  static std::optional<int> WaitExit(pid_t pid, milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }

  // The server's exit status once it ended within `timeout`.
  std::optional<int> WaitServeExit(milliseconds timeout) {
    auto status = WaitExit(pid_, timeout);
    if (status) pid_ = -1;
    return status;
  }

  // `diagd ARGS --config F` to its end: exit status and stdout; stderr too.
  struct Invocation {
    int exit_code = -1;
    std::string out;
    std::string err;
  };
  Invocation RunToEnd(std::vector<std::string> args) {
    args.insert(args.end(), {"--config", config_path().string()});
    pid_t pid = Spawn(args, dir_ / "cli.out", dir_ / "cli.err");
    Invocation result;
    auto status = WaitExit(pid, seconds(30));
    if (!status) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    result.exit_code = status.value_or(-1);
    result.out = ReadFile(dir_ / "cli.out");
    result.err = ReadFile(dir_ / "cli.err");
    return result;
  }

  // Waits until the server's log holds `event` (as its event name), or it
  // exits, or `timeout` passes.
  bool WaitForLogEvent(std::string_view event, milliseconds timeout) {
    std::string needle = "\"event\":\"" + std::string(event) + "\"";
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (Log().find(needle) != std::string::npos) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return Log().find(needle) != std::string::npos;
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  // Starts `diagd serve` on 127.0.0.1 and a free port and waits for its
  // `listening` line; another port is tried when the one picked was taken.
  ::testing::AssertionResult StartServe(const std::string& model_base_url, int grace_seconds,
                                        const std::string& more_server_keys = "") {
    for (int attempt = 0; attempt < 3; ++attempt) {
      port_ = FreeLoopbackPort();
      WriteConfig(model_base_url, "listen = \"127.0.0.1:" + std::to_string(port_) + "\"\n" +
                                      "shutdown_grace_seconds = " +
                                      std::to_string(grace_seconds) + "\n" + more_server_keys);
      pid_ = Spawn({"serve", "--config", config_path().string()}, dir_ / "serve.out",
                   dir_ / "serve.err");
      if (WaitForLogEvent("listening", seconds(30))) return ::testing::AssertionSuccess();
      if (pid_ > 0) break;  // still running without listening: no retry helps
      if (Log().find("cannot listen") == std::string::npos) break;
    }
    return ::testing::AssertionFailure() << "diagd serve did not start:\n" << Log();
  }

  // The stream's events up to the first one named `name` (fewer when the
  // stream ends first).
  static std::vector<SseEvent> EventsThrough(SseStream& stream, std::string_view name) {
    std::vector<SseEvent> seen;
    while (seen.empty() || seen.back().name != name) {
      auto event = stream.Next();
      if (!event) break;
      seen.push_back(*event);
    }
    return seen;
  }

  boost::json::object RunRecord(const std::string& run_id) {
    auto shown = RunToEnd({"runs", "show", run_id});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    boost::system::error_code ec;
    auto record = boost::json::parse(shown.out, ec);
    if (ec || !record.is_object()) {
      ADD_FAILURE() << "runs show printed no JSON object:\n" << shown.out << shown.err;
      return {};
    }
    return record.as_object();
  }

  // The run's events as stored, read through the run store itself.
  std::vector<app::RunEvent> StoredEvents(const std::string& run_id) {
    auto config = config::LoadConfigFile(config_path(), {});
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return {};
    }
    auto runs = wiring::OpenRunStore(*config, SystemClock::Instance());
    if (!runs) {
      ADD_FAILURE() << runs.error().message;
      return {};
    }
    auto events = (*runs)->RunEvents(run_id, 0);
    if (!events) {
      ADD_FAILURE() << events.error().message;
      return {};
    }
    return *events;
  }

  fs::path dir_;
  pid_t pid_ = -1;  // the server while it runs
  int port_ = 0;
};

TEST_F(ServeBinary, SigtermAbandonsARunThatOutlivesTheGracePeriodAsFailed) {
  // Each model call takes 20 s: the run is still waiting on its first one
  // when the 1 s grace period ends.
  ScriptedModelServer model(ScriptedDiagnosis(1, seconds(20)));
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/1));

  SseStream stream(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  ASSERT_EQ(stream.status(), 200);
  std::vector<SseEvent> seen = EventsThrough(stream, "route");
  ASSERT_TRUE(!seen.empty() && seen.back().name == "route") << "the stream ended before `route`";
  ASSERT_EQ(seen.front().name, "run");
  std::string run_id = RunIdOf(seen.front());
  ASSERT_FALSE(run_id.empty());
  // A second client waits in JSON mode on a run still being routed (no
  // route given: the router's call is as slow); it is stored from the start.
  HttpReply json_reply;
  std::thread json_client([&] {
    json_reply = Request(port_, "POST", "/api/v1/chat", kJsonBody,
                         std::string(R"({"message":"why? )") + kMarker + R"("})");
  });
  while (boost::json::parse(Request(port_, "GET", "/api/v1/runs").body).at("runs").as_array().size() < 2) {
    std::this_thread::sleep_for(milliseconds(20));
  }

  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  auto rest = stream.Rest(seconds(15));
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].name, "error");
  EXPECT_EQ(rest[0].id, seen.back().id + 1);
  auto error = boost::json::parse(rest[0].data);
  EXPECT_EQ(error.at("code"), "RUN_ABANDONED") << rest[0].data;
  EXPECT_EQ(rest[1].name, "done");
  EXPECT_EQ(rest[1].id, seen.back().id + 2);
  json_client.join();
  EXPECT_EQ(json_reply.status, 500) << "a JSON client of an abandoned run gets its answer";
  auto json_error = boost::json::parse(json_reply.body);
  EXPECT_EQ(json_error.at("error").at("code"), "RUN_ABANDONED") << json_reply.body;
  ASSERT_TRUE(json_error.at("error").as_object().contains("run_id"))
      << "the client must be able to find the record: " << json_reply.body;
  auto exit_status = WaitServeExit(seconds(10));
  ASSERT_TRUE(exit_status.has_value()) << "diagd serve still runs after SIGTERM:\n" << Log();
  EXPECT_EQ(*exit_status, 0) << Log();

  auto record = RunRecord(run_id);
  EXPECT_EQ(record["status"], "FAILED");
  EXPECT_EQ(record["internal_status"], "FAILED");
  EXPECT_EQ(record["failure_reason"], "SERVER_SHUTDOWN");
  EXPECT_EQ(record["route"], "DIAGNOSIS") << "an abandoned run keeps the route it was given";
  // The store holds the stream the client saw, error and done included.
  std::vector<SseEvent> watched = seen;
  watched.insert(watched.end(), rest.begin(), rest.end());
  auto stored = StoredEvents(run_id);
  ASSERT_EQ(stored.size(), watched.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i].id, watched[i].id);
    EXPECT_EQ(stored[i].name, watched[i].name);
    EXPECT_EQ(stored[i].data, watched[i].data);
  }

  std::string log = Log();
  auto lines = LogLines(log);
  EXPECT_EQ(LinesOf(lines, "shutdown_started").size(), 1u) << log;
  auto abandoned = LinesOf(lines, "run_abandoned");
  ASSERT_EQ(abandoned.size(), 2u) << log;
  for (const auto& line : abandoned) {
    std::string id(line.at("run_id").as_string());
    auto unrouted = RunRecord(id);
    EXPECT_EQ(unrouted["status"], "FAILED") << id;
    EXPECT_EQ(unrouted["failure_reason"], "SERVER_SHUTDOWN") << id;
    if (id != run_id) {
      EXPECT_TRUE(unrouted["route"].is_null()) << "abandoned while routing";
    }
  }
  auto complete = LinesOf(lines, "shutdown_complete");
  ASSERT_EQ(complete.size(), 1u) << log;
  EXPECT_EQ(complete[0].at("abandoned"), 2);
  EXPECT_EQ(log.find(kMarker), std::string::npos) << "the question was logged:\n" << log;
}

TEST_F(ServeBinary, ARunLeftRunningByAKilledServerEndsAsLostWhenItStartsAgain) {
  // The model call hangs: the run is RUNNING in the store when the server
  // is killed with no chance to say anything.
  ScriptedModelServer model(ScriptedDiagnosis(1, seconds(20)));
  const std::string instance = "instance_id = \"serve-test\"\n";
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/1, instance));
  SseStream stream(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  ASSERT_EQ(stream.status(), 200);
  std::vector<SseEvent> seen = EventsThrough(stream, "route");
  ASSERT_FALSE(seen.empty());
  std::string run_id = RunIdOf(seen.front());
  ASSERT_FALSE(run_id.empty());
  auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (model.Requests().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(model.Requests().size(), 1u) << "the run is waiting on its model";
  ASSERT_EQ(::kill(pid_, SIGKILL), 0);
  ASSERT_TRUE(WaitServeExit(seconds(10)).has_value());
  EXPECT_EQ(RunRecord(run_id)["status"], "RUNNING") << "left behind";

  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/1, instance));
  // Ready as a load balancer sees it: a connection made right after the
  // `listening` line was seen closed unanswered here (note of this session).
  for (int i = 0; i < 50 && Request(port_, "GET", "/healthz").status != 200; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  HttpReply shown = Request(port_, "GET", "/api/v1/runs/" + run_id);
  ASSERT_EQ(shown.status, 200) << shown.body;
  auto record = boost::json::parse(shown.body).as_object();
  EXPECT_EQ(record["status"], "FAILED");
  EXPECT_EQ(record["failure_reason"], "INSTANCE_LOST");
  // Its stream ends, at once, with error and done.
  HttpReply events = Request(port_, "GET", "/api/v1/runs/" + run_id + "/events");
  auto replay = ParseSse(events.body);
  ASSERT_EQ(replay.size(), 3u) << events.body;
  EXPECT_EQ(replay[0].name, "run");
  EXPECT_EQ(replay[1].name, "error");
  EXPECT_EQ(boost::json::parse(replay[1].data).at("code"), "INSTANCE_LOST");
  EXPECT_EQ(replay[2].name, "done");
  EXPECT_EQ(LinesOf(LogLines(Log()), "run_lost").size(), 1u) << Log();
  EXPECT_EQ(model.Requests().size(), 1u) << "a lost run is never executed again";
}

TEST_F(ServeBinary, SigtermLetsARunningRunFinishWithinTheGracePeriod) {
  ScriptedModelServer model(ScriptedDiagnosis(1, milliseconds(300)));  // 3 calls, ~1 s
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/10));

  SseStream stream(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  ASSERT_EQ(stream.status(), 200);
  auto first = stream.Next();
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->name, "run");
  std::string run_id = RunIdOf(*first);
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);

  // Once the shutdown began, no new chat gets in: refused at the door
  // (status 0: connection refused or closed unanswered) or with a 503.
  ASSERT_TRUE(WaitForLogEvent("shutdown_started", seconds(10))) << Log();
  HttpReply late = Request(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  EXPECT_TRUE(late.status == 0 || late.status == 503) << late.status << " " << late.body;

  auto rest = stream.Rest(seconds(15));
  ASSERT_GE(rest.size(), 2u);
  EXPECT_EQ(rest[rest.size() - 2].name, "result");
  EXPECT_EQ(rest.back().name, "done");
  auto result = boost::json::parse(rest[rest.size() - 2].data);
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  auto exit_status = WaitServeExit(seconds(10));
  ASSERT_TRUE(exit_status.has_value()) << "diagd serve still runs after SIGTERM:\n" << Log();
  EXPECT_EQ(*exit_status, 0) << Log();

  EXPECT_EQ(RunRecord(run_id)["status"], "SUCCEEDED");
  auto list = RunToEnd({"runs", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 2) << "a header and one run:\n"
                                                                   << list.out;
  auto lines = LogLines(Log());
  EXPECT_TRUE(LinesOf(lines, "run_abandoned").empty()) << Log();
  auto complete = LinesOf(lines, "shutdown_complete");
  ASSERT_EQ(complete.size(), 1u) << Log();
  EXPECT_EQ(complete[0].at("abandoned"), 0);
}

// A kept-alive connection with no request under way is closed as soon as
// the shutdown begins, while runs still drain: a balancer then sends the
// next request elsewhere instead of to an instance that can only refuse it.
TEST_F(ServeBinary, SigtermClosesIdleKeptAliveConnectionsWhileRunsDrain) {
  ScriptedModelServer model(ScriptedDiagnosis(1, milliseconds(5000)));  // 3 calls, ~15 s
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/60));
  SseStream stream(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  auto first = stream.Next();
  ASSERT_TRUE(first && first->name == "run");
  std::string run_id = RunIdOf(*first);

  int idle = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(idle, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port_));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(idle, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";  // kept alive
  ASSERT_EQ(::write(idle, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string answered;
  char chunk[4096];
  while (answered.find("\"status\":\"ok\"") == std::string::npos) {
    ssize_t n = ::read(idle, chunk, sizeof(chunk));
    ASSERT_GT(n, 0) << "no answer on the kept-alive connection: " << answered;
    answered.append(chunk, static_cast<std::size_t>(n));
  }

  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  timeval wait{30, 0};  // a bound for a busy machine, not a measure
  ::setsockopt(idle, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  EXPECT_EQ(::read(idle, chunk, sizeof(chunk)), 0) << "the idle connection was not closed";
  ::close(idle);
  EXPECT_EQ(RunRecord(run_id)["status"], "RUNNING") << "closed while the run still drains";

  auto rest = stream.Rest(seconds(60));
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().name, "done");
  auto exit_status = WaitServeExit(seconds(30));
  ASSERT_TRUE(exit_status.has_value()) << Log();
  EXPECT_EQ(*exit_status, 0) << Log();
  EXPECT_EQ(RunRecord(run_id)["status"], "SUCCEEDED");
}

TEST_F(ServeBinary, ManyRunsAbandonedAtOnceAreAllStoredAndAnswered) {
  ScriptedModelServer model(ScriptedDiagnosis(1, seconds(20)));
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/1));
  constexpr int kRuns = 40;
  std::vector<HttpReply> replies(kRuns);
  std::vector<std::thread> clients;
  for (int i = 0; i < kRuns; ++i) {
    clients.emplace_back([&, i] {
      replies[i] = Request(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
    });
  }
  while (boost::json::parse(Request(port_, "GET", "/api/v1/runs?limit=200").body)
             .at("runs").as_array().size() < kRuns) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  for (auto& client : clients) client.join();
  for (const auto& reply : replies) {
    EXPECT_EQ(reply.status, 500) << reply.body;
    EXPECT_NE(reply.body.find("RUN_ABANDONED"), std::string::npos) << reply.body;
  }
  auto exit_status = WaitServeExit(seconds(10));
  ASSERT_TRUE(exit_status.has_value()) << Log();
  EXPECT_EQ(*exit_status, 0);
  auto lines = LogLines(Log());
  auto abandoned = LinesOf(lines, "run_abandoned");
  ASSERT_EQ(abandoned.size(), std::size_t{kRuns}) << Log();
  for (const auto& line : abandoned) {
    EXPECT_EQ(line.at("stored"), "FAILED") << Log();
    std::string id(line.at("run_id").as_string());
    EXPECT_EQ(RunRecord(id)["failure_reason"], "SERVER_SHUTDOWN") << id;
  }
}

TEST_F(ServeBinary, RunsWaitingOnTheModelHoldNoThreadEach) {
  // A run spends its life waiting on a model, and waiting must be
  // cheap. 64 runs wait on their model at once; the server keeps its few
  // workers and service threads, not one thread per run.
  constexpr int kRuns = 64;
  ScriptedModelServer model(ScriptedDiagnosis(1, seconds(2)));
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/5));
  long threads_idle = ProcStatus(pid_, "Threads:");
  std::vector<HttpReply> replies(kRuns);
  std::vector<std::thread> clients;
  for (int i = 0; i < kRuns; ++i) {
    clients.emplace_back([&, i] {
      replies[i] = Request(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
    });
  }
  auto deadline = std::chrono::steady_clock::now() + seconds(20);
  while (model.Requests().size() < kRuns && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(model.Requests().size(), std::size_t{kRuns}) << "not every run reached its model";
  long threads_waiting = ProcStatus(pid_, "Threads:");
  for (auto& client : clients) client.join();
  // Allowed: the curl multi thread, started by the first model call.
  EXPECT_LT(threads_waiting, threads_idle + 8)
      << "threads idle " << threads_idle << ", with " << kRuns << " runs waiting "
      << threads_waiting;
  for (const auto& reply : replies) {
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_NE(reply.body.find(R"("release_outcome":"DIAGNOSIS")"), std::string::npos) << reply.body;
  }
}

TEST(ServeBinaryAllocator, RunsOnTheAllocatorItWasBuiltWith) {
  // DIAGD_JEMALLOC: jemalloc serves the process with the settings built into
  // the binary (src/cli/allocator.cc), which it prints when asked to at exit.
  // Else glibc's malloc, and nothing of jemalloc's.
  std::filesystem::path log = std::filesystem::temp_directory_path() /
                              ("diagd-allocator-" + std::to_string(::getpid()) + ".log");
  ::setenv("MALLOC_CONF", "stats_print:true", 1);
  pid_t pid = diagd::testing::SpawnChild({DIAGD_BINARY, "--help"}, {.log = log});
  ::unsetenv("MALLOC_CONF");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  std::string printed = diagd::testing::ReadWholeFile(log);
  std::filesystem::remove(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << printed;
#ifdef DIAGD_JEMALLOC
  EXPECT_NE(printed.find(R"(opt.thp: "always")"), std::string::npos) << printed;
  EXPECT_NE(printed.find(R"(opt.percpu_arena: "percpu")"), std::string::npos) << printed;
  EXPECT_NE(printed.find("opt.dirty_decay_ms: -1"), std::string::npos) << printed;
  EXPECT_NE(printed.find("opt.lg_extent_max_active_fit: 30"), std::string::npos) << printed;
#else
  EXPECT_EQ(printed.find("jemalloc"), std::string::npos) << printed;
#endif
}

TEST_F(ServeBinary, ASecondSignalCutsTheGracePeriod) {
  ScriptedModelServer model(ScriptedDiagnosis(1, seconds(20)));
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/60));
  SseStream stream(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  ASSERT_EQ(stream.status(), 200);
  std::vector<SseEvent> seen = EventsThrough(stream, "route");
  ASSERT_TRUE(!seen.empty() && seen.back().name == "route") << "the stream ended before `route`";
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  ASSERT_TRUE(WaitForLogEvent("shutdown_started", seconds(10))) << Log();
  ASSERT_EQ(::kill(pid_, SIGINT), 0);
  // Not the 60 s grace: the run is abandoned as soon as the second signal
  // is handled.
  auto rest = stream.Rest(seconds(15));
  ASSERT_EQ(rest.size(), 2u) << Log();
  EXPECT_NE(rest[0].data.find("RUN_ABANDONED"), std::string::npos) << rest[0].data;
  auto exit_status = WaitServeExit(seconds(10));
  ASSERT_TRUE(exit_status.has_value()) << Log();
  EXPECT_EQ(*exit_status, 0);
  EXPECT_EQ(LinesOf(LogLines(Log()), "shutdown_hurried").size(), 1u) << Log();
  EXPECT_EQ(RunRecord(RunIdOf(seen.front()))["failure_reason"], "SERVER_SHUTDOWN");
}

TEST_F(ServeBinary, RefusesToListenBeyondLoopbackWithoutTokens) {
  ScriptedModelServer model(ScriptedDiagnosis(1, milliseconds(0)));
  WriteConfig(model.BaseUrl(), "listen = \"0.0.0.0:" + std::to_string(FreeLoopbackPort()) + "\"\n");
  auto serve = RunToEnd({"serve"});
  EXPECT_EQ(serve.exit_code, 2) << serve.err;
  EXPECT_NE(serve.err.find("server.auth_tokens"), std::string::npos) << serve.err;
}

TEST_F(ServeBinary, LogsOneLinePerRunWithoutPayloads) {
  ScriptedModelServer model(ScriptedDiagnosis(1, milliseconds(0)));
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/10));

  HttpReply reply = Request(port_, "POST", "/api/v1/chat", kJsonBody, DiagnosisChat());
  ASSERT_EQ(reply.status, 200) << reply.body;
  auto result = boost::json::parse(reply.body).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  auto exit_status = WaitServeExit(seconds(10));
  ASSERT_TRUE(exit_status.has_value()) << "diagd serve still runs after SIGTERM:\n" << Log();
  EXPECT_EQ(*exit_status, 0) << Log();

  std::string log = Log();
  auto finished = LinesOf(LogLines(log), "run_finished");
  ASSERT_EQ(finished.size(), 1u) << log;
  EXPECT_EQ(finished[0].at("run_id"), result.at("run_id"));
  EXPECT_EQ(finished[0].at("release_outcome"), "DIAGNOSIS");
  EXPECT_EQ(finished[0].at("status"), "SUCCEEDED");
  EXPECT_EQ(log.find(kMarker), std::string::npos) << "the question was logged:\n" << log;
  EXPECT_EQ(log.find(kScriptedDiagnosisQuote), std::string::npos) << "evidence was logged:\n"
                                                                  << log;
}

// Hostile PromQL from many concurrent runs against a real Prometheus,
// through the binary: each call ends as a bounded result or a tool ERROR,
// each run finishes and is stored, and the server stays up. The scripted
// model server (it plays a script; it is no model) has each run call
// query_metrics once with the query its question names, then cite a quote
// no result holds (so the run releases the fallback).
class HostilePromql {
 public:
  static std::vector<std::string> Inputs() {
    std::string long_query = "hikaricp_connections_active";
    while (long_query.size() + 31 <= 2000) long_query += " or hikaricp_connections_active";
    auto input = [](const std::string& query, int lookback) {
      boost::json::object in{{"query", query}};
      if (lookback > 0) in["lookback_minutes"] = lookback;
      return boost::json::serialize(boost::json::object{{"input", in}});
    };
    auto wide_input = [](int step_seconds) {
      boost::json::object in{{"query", "wide"}, {"lookback_minutes", 10}, {"step_seconds", step_seconds}};
      return boost::json::serialize(boost::json::object{{"input", in}});
    };
    return {
        input(long_query, 0),                                      // 0: ~2000 characters
        input("rate(hikaricp_connections_active[5m]", 0),          // 1: a syntax error
        wide_input(60),                                            // 2: 3000 series
        input("hikaricp_connections_active", 365 * 24 * 60),       // 3: a year
        input("max_over_time(rate(hikaricp_connections_active[1m])[100d:1s])", 0),  // 4: a bomb
        wide_input(10),  // 5: 3000 series of 61 points: more than a result may be
    };
  }

  static ScriptedModelServer::Responder Responder() {
    std::vector<std::string> inputs = Inputs();
    return [inputs](const ScriptedModelServer::RecordedRequest& request) -> ScriptedReply {
      auto component = request.headers.find("x-diagd-component");
      std::string name = component == request.headers.end() ? "" : component->second;
      if (name == "ROUTER") return {ScriptedAnswer{R"({"route":"DIAGNOSIS"})"}, {}};
      if (name == "SEMANTIC_GUARD") return {ScriptedAnswer{R"({"verdict":"SUPPORTED"})"}, {}};
      if (request.body.find(R"("role":"tool")") == std::string::npos) {
        auto at = request.body.find("hostile-");
        std::size_t which = at == std::string::npos ? 0 : request.body[at + 8] - '0';
        return {ScriptedToolCalls{{{"call_1", "query_metrics", inputs.at(which), false}}}, {}};
      }
      return {ScriptedAnswer{R"({"conclusion":{"root_cause":"连接池被占满","confidence":"LOW",)"
                             R"("evidence":[{"tool_call_id":"call_1","quote":"no such words"}]}})"},
              {}};
    };
  }
};

TEST_F(ServeBinary, HostilePromqlFromConcurrentRunsGetsBoundedToolResultsAndTheServerStaysUp) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  std::string recording = demo->substr(0, demo->rfind("# EOF")) +
                          diagd::testing::WideRecording("wide", 3000, 10, kNowSeconds);
  DIAGD_START_PROMETHEUS(prometheus, {.openmetrics = recording});
  ScriptedModelServer model(HostilePromql::Responder());
  ASSERT_TRUE(StartServe(model.BaseUrl(), /*grace_seconds=*/10,
                         "[tools.metrics]\nurl = \"" + prometheus->url() + "\"\n"));

  const std::size_t kKinds = HostilePromql::Inputs().size();
  constexpr int kRounds = 3;
  std::vector<HttpReply> replies(kKinds * kRounds);
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    clients.emplace_back([&, i] {
      boost::json::object chat{
          {"message", "payment-service 连接池为什么耗尽？ hostile-" + std::to_string(i % kKinds)},
          {"route", "diagnosis"}};
      replies[i] = Request(port_, "POST", "/api/v1/chat", kJsonBody, boost::json::serialize(chat));
    });
  }
  for (auto& client : clients) client.join();

  for (std::size_t i = 0; i < replies.size(); ++i) {
    ASSERT_EQ(replies[i].status, 200) << replies[i].body;
    auto result = boost::json::parse(replies[i].body).as_object();
    EXPECT_EQ(result.at("release_outcome"), "FALLBACK") << replies[i].body;
    auto record = RunRecord(std::string(result.at("run_id").as_string()));
    const boost::json::object* completed = nullptr;
    for (const auto& event : record.at("trace").as_array()) {
      if (event.at("type") == "TOOL_CALL_COMPLETED") completed = &event.at("fields").as_object();
    }
    ASSERT_NE(completed, nullptr) << "hostile-" << i % kKinds << ": no tool call completed";
    EXPECT_EQ(completed->at("tool"), "query_metrics");
    const auto& status = completed->at("evidence_status");
    switch (i % kKinds) {
      case 1:  // Prometheus refuses it: a tool ERROR the model could repair
        EXPECT_EQ(status, "ERROR") << *completed;
        break;
      case 2:  // 3000 series matched, a bounded few kept
        EXPECT_EQ(completed->at("returned_count"), 3000) << *completed;
        EXPECT_EQ(completed->at("truncated"), true) << *completed;
        break;
      case 5:  // Prometheus's answer is over 4 MiB: refused, the model told to narrow it
        EXPECT_EQ(status, "ERROR") << *completed;
        break;
      case 3:  // a year is clamped to the maximum lookback
        EXPECT_NE(std::string(completed->at("scope_summary").as_string()).find("1440"),
                  std::string::npos)
            << *completed;
        break;
      default:  // answered (or refused) within bounds
        EXPECT_TRUE(status == "EVIDENCE_FOUND" || status == "NO_EVIDENCE" || status == "ERROR")
            << *completed;
    }
  }
  // What the model was told of the refused queries: Prometheus's own words,
  // and that the answer was too large.
  std::string told;
  for (const auto& request : model.Requests()) told += request.body;
  EXPECT_NE(told.find("QUERY_FAILED"), std::string::npos);
  EXPECT_NE(told.find("parse error"), std::string::npos);
  EXPECT_NE(told.find("the result is too large: narrow the query"), std::string::npos);
  EXPECT_EQ(Request(port_, "GET", "/healthz").status, 200);
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  auto exit_status = WaitServeExit(seconds(20));
  ASSERT_TRUE(exit_status.has_value()) << Log();
  EXPECT_EQ(*exit_status, 0) << Log();
}

}  // namespace
}  // namespace diagd::server::testing
