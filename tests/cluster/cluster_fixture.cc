#include "cluster/cluster_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "testing/free_port.h"

namespace diagd::cluster_testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::string DiagnosisChat(const std::string& marker, const std::string& conversation_id) {
  boost::json::object chat{{"message", "payment-service 的支付为什么失败？ " + marker},
                           {"route", "diagnosis"}};
  if (!conversation_id.empty()) chat["conversation_id"] = conversation_id;
  return boost::json::serialize(chat);
}

std::string RunIdIn(const std::string& json) {
  boost::system::error_code ec;
  auto value = boost::json::parse(json, ec);
  if (ec || !value.is_object()) return "";
  const boost::json::object* object = &value.as_object();
  if (const auto* error = object->if_contains("error"); error != nullptr && error->is_object()) {
    object = &error->as_object();
  }
  const auto* id = object->if_contains("run_id");
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : "";
}

::testing::AssertionResult CountFromOne(const std::vector<SseEvent>& events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].id != static_cast<std::int64_t>(i + 1)) {
      auto failure = ::testing::AssertionFailure() << "event " << i << " (" << events[i].name
                                                   << ") has id " << events[i].id << "; ids:";
      for (const auto& event : events) failure << " " << event.id << ":" << event.name;
      return failure;
    }
  }
  return ::testing::AssertionSuccess();
}

DiagdInstance::DiagdInstance(std::string id, fs::path dir, int port)
    : id_(std::move(id)), dir_(std::move(dir)), port_(port) {
  fs::create_directories(dir_);
  fs::remove(dir_ / "serve.err");
  fs::remove(dir_ / "serve.out");
}

DiagdInstance::~DiagdInstance() { Kill(); }

void DiagdInstance::Spawn(const std::string& config_text) {
  std::ofstream(dir_ / "diagd.toml", std::ios::trunc) << config_text;
  std::vector<std::string> args{DIAGD_BINARY, "serve", "--config", (dir_ / "diagd.toml").string()};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // Made before fork: after it, only async-signal-safe calls (this process
  // has threads).
  std::string err_path = (dir_ / "serve.err").string();
  std::string out_path = (dir_ / "serve.out").string();
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || in_fd < 0) ::_exit(127);
    ::dup2(in_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    // No socket of the test (a client's stream, the model server's
    // listener) may live on in the instance: closing it here must close it.
    ::close_range(3, ~0U, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
}

::testing::AssertionResult DiagdInstance::Ready(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (WaitExit(0ms).has_value()) {
      return ::testing::AssertionFailure() << id_ << " exited during start-up:\n" << Log();
    }
    if (Fetch(port_, "GET", "/healthz", {}, "", 2s).status == 200) {
      return ::testing::AssertionSuccess();
    }
    std::this_thread::sleep_for(50ms);
  }
  return ::testing::AssertionFailure() << id_ << " did not answer /healthz within "
                                       << timeout.count() << " ms:\n" << Log();
}

void DiagdInstance::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void DiagdInstance::Terminate() {
  if (pid_ > 0) ::kill(pid_, SIGTERM);
}

std::optional<int> DiagdInstance::WaitExit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(10ms);
  }
}

std::string DiagdInstance::Log() const { return ReadWhole(dir_ / "serve.err"); }

bool DiagdInstance::Logged(const std::string& event) const {
  return Log().find("\"event\":\"" + event + "\"") != std::string::npos;
}

void ClusterTest::SetUp() {
  auto server = testing::SharedPostgresServer();
  if (!server && server.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << server.error().message;
  }
  ASSERT_TRUE(server) << server.error().ToString();
  postgres_ = *server;
  auto url = postgres_->CreateDatabase();
  ASSERT_TRUE(url) << url.error().ToString();
  database_url_ = *url;
  database_ = database_url_.substr(database_url_.rfind('/') + 1);
  dir_ = fs::temp_directory_path() /
         ("diagd-cluster-" + std::to_string(::getpid()) + "-" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

void ClusterTest::TearDown() {
  if (HasFailure()) {
    std::cerr << Logs();
    if (nginx_ != nullptr) {
      std::string log = nginx_->ErrorLog();
      if (log.size() > 4000) log = "...\n" + log.substr(log.size() - 4000);
      std::cerr << "--- nginx error log\n" << log;
    }
  }
  nginx_.reset();
  instances_.clear();  // kills what still runs
  model_.reset();
  std::error_code ignored;
  if (!dir_.empty()) fs::remove_all(dir_, ignored);
}

std::string ClusterTest::InstanceConfig(const DiagdInstance& instance) const {
  const std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
  const fs::path home = dir_ / instance.id();
  auto lease = options_.lease_seconds_of.find(instance.id());
  int lease_seconds =
      lease == options_.lease_seconds_of.end() ? options_.lease_seconds : lease->second;
  std::ostringstream config;
  config << "now = \"2026-11-29T10:30:00Z\"\n"
         << "[server]\n"
         << "listen = \"127.0.0.1:" << instance.port() << "\"\n"
         << "instance_id = \"" << instance.id() << "\"\n"
         << "lease_seconds = " << lease_seconds << "\n"
         << "shutdown_grace_seconds = " << options_.shutdown_grace_seconds << "\n"
         << "[storage]\n"
         << "runs = \"" << database_url_ << "\"\n"
         << options_.more_storage << "[model]\nprovider = \"openai\"\n"
         << "base_url = \"" << model_->BaseUrl() << "\"\n"
         << "name = \"scripted\"\ntimeout_seconds = 60\n"
         << "[tools.documents]\npath = \"" << demo << "/docs\"\n"
         << "cache_path = \"" << (home / "cache").string() << "\"\n"
         << "[tools.logs]\npath = \"" << demo << "/logs\"\n"
         << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n";
  return config.str();
}

void ClusterTest::StartCluster(testing::ScriptedModelServer::Responder responder,
                               ClusterOptions options) {
  options_ = std::move(options);
  model_ = std::make_unique<testing::ScriptedModelServer>(std::move(responder));
  for (int i = 1; i <= options_.instances; ++i) {
    std::string id = "i" + std::to_string(i);
    instances_.push_back(
        std::make_unique<DiagdInstance>(id, dir_ / id, testing::FreeLoopbackPort()));
  }
  // Started together (each migrates the database under PostgreSQL's
  // advisory lock), then each waited for; one whose port someone else took
  // meanwhile gets another.
  for (auto& instance : instances_) instance->Spawn(InstanceConfig(*instance));
  std::vector<int> ports;
  for (auto& instance : instances_) {
    ::testing::AssertionResult ready = instance->Ready();
    for (int attempt = 1; attempt < 3 && !ready; ++attempt) {
      if (instance->Log().find("cannot listen") == std::string::npos) break;
      instance = std::make_unique<DiagdInstance>(instance->id(), dir_ / instance->id(),
                                                 testing::FreeLoopbackPort());
      instance->Spawn(InstanceConfig(*instance));
      ready = instance->Ready();
    }
    ASSERT_TRUE(ready);
    ports.push_back(instance->port());
  }
  auto nginx = testing::NginxServer::Start(ports);
  if (!nginx && nginx.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << nginx.error().message;
  }
  ASSERT_TRUE(nginx) << nginx.error().ToString();
  nginx_ = std::move(*nginx);
}

::testing::AssertionResult ClusterTest::Restart(std::size_t i) {
  DiagdInstance& restarted = instance(i);
  if (restarted.running()) return ::testing::AssertionFailure() << restarted.id() << " still runs";
  restarted.Spawn(InstanceConfig(restarted));
  return restarted.Ready();
}

std::string ClusterTest::Scalar(const std::string& sql) {
  auto value = postgres_->Scalar(database_, sql);
  EXPECT_TRUE(value) << value.error().ToString();
  return value ? *value : "";
}

std::map<std::string, StoredRun> ClusterTest::StoredRuns() {
  std::string rows = Scalar(
      "SELECT string_agg(run_id || ' ' || status || ' ' || coalesce(failure_reason, '-') || ' ' "
      "|| coalesce(instance_id, '-'), E'\\n' ORDER BY run_id) FROM diagnosis_run");
  std::map<std::string, StoredRun> runs;
  std::istringstream lines(rows);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string run_id;
    StoredRun run;
    fields >> run_id >> run.status >> run.failure_reason >> run.instance_id;
    if (run.failure_reason == "-") run.failure_reason.clear();
    if (run.instance_id == "-") run.instance_id.clear();
    runs[run_id] = run;
  }
  return runs;
}

DiagdInstance* ClusterTest::ExecutingInstance(const std::string& run_id) {
  std::string id = Scalar("SELECT instance_id FROM diagnosis_run WHERE run_id = '" + run_id + "'");
  for (auto& instance : instances_) {
    if (instance->id() == id) return instance.get();
  }
  return nullptr;
}

std::size_t ClusterTest::ModelCallsFor(const std::string& marker) {
  std::size_t calls = 0;
  for (const auto& request : model_->Requests()) {
    if (request.body.find(marker) != std::string::npos) ++calls;
  }
  return calls;
}

::testing::AssertionResult ClusterTest::WaitUntilEnded(const std::string& run_id,
                                                       std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::string status;
  while (Clock::now() < deadline) {
    status = Scalar("SELECT status FROM diagnosis_run WHERE run_id = '" + run_id + "'");
    if (!status.empty() && status != "RUNNING") return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(100ms);
  }
  return ::testing::AssertionFailure() << run_id << " is still '" << status << "' after "
                                       << timeout.count() << " ms";
}

std::string ClusterTest::Logs() const {
  std::string logs;
  for (const auto& instance : instances_) {
    logs += "--- " + instance->id() + " (port " + std::to_string(instance->port()) + ")\n" +
            instance->Log();
  }
  return logs;
}

}  // namespace diagd::cluster_testing
