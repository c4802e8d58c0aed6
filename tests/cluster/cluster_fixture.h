// Several real `diagd serve` processes sharing one PostgreSQL run store,
// behind a real nginx, for the tests of docs/deploy.md (several
// instances). Each test gets its own database on the test program's
// private PostgreSQL (tests/testing/postgres_server.h), a scripted model
// server that all instances call (it plays a diagnosis per request; it is
// no model), and instances named i1, i2, ... with the demo workspace's
// tools and a short lease, so that a lost instance is noticed in seconds.
//
// Everything runs on the test's own thread; the processes die with the test
// program (PR_SET_PDEATHSIG), and TearDown kills what is left.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/http_client.h"
#include "testing/nginx_server.h"
#include "testing/postgres_server.h"
#include "testing/scripted_model_server.h"

namespace diagd::cluster_testing {

// The question every chat asks, with a marker of its own appended so that a
// test can find its model calls.
std::string DiagnosisChat(const std::string& marker, const std::string& conversation_id = "");

// The run id in a `run` event's data, or in a JSON answer or error body
// ("" when there is none).
std::string RunIdIn(const std::string& json);

// The ids of `events` are 1, 2, ..., n: none missing, none repeated.
::testing::AssertionResult CountFromOne(const std::vector<SseEvent>& events);

// One `diagd serve` process, restartable on the same port.
class DiagdInstance {
 public:
  // A fresh instance (its logs in `dir` emptied) that will listen on
  // 127.0.0.1:`port`.
  DiagdInstance(std::string id, std::filesystem::path dir, int port);
  ~DiagdInstance();
  DiagdInstance(const DiagdInstance&) = delete;
  DiagdInstance& operator=(const DiagdInstance&) = delete;

  const std::string& id() const { return id_; }
  int port() const { return port_; }
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Writes the configuration into its folder and spawns the process; Ready
  // waits until it answers /healthz with 200.
  void Spawn(const std::string& config_text);
  ::testing::AssertionResult Ready(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGKILL, and the exit reaped.
  void Kill();
  // SIGTERM: the graceful shutdown begins; WaitExit sees its end.
  void Terminate();
  // The exit status (-1: not a normal exit) once it ended within `timeout`.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  // stderr of every start, in order.
  std::string Log() const;
  // Whether the log has a line with this event name.
  bool Logged(const std::string& event) const;

 private:
  std::string id_;
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

struct ClusterOptions {
  int instances = 3;
  int lease_seconds = 3;
  std::map<std::string, int> lease_seconds_of;  // by instance id, where not lease_seconds
  int shutdown_grace_seconds = 20;
  // More lines of [storage] (storage.canonical = "redis://...").
  std::string more_storage;
};

// A stored run as the database holds it.
struct StoredRun {
  std::string status;
  std::string failure_reason;  // "" when null
  std::string instance_id;
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The model server answering every call with `responder`, the instances
  // (started together, each ready) and nginx in front of them all.
  // REQUIRES: called once, from the test's thread, under
  // ASSERT_NO_FATAL_FAILURE.
  void StartCluster(testing::ScriptedModelServer::Responder responder,
                    ClusterOptions options = {});

  DiagdInstance& instance(std::size_t i) { return *instances_.at(i); }
  std::size_t instance_count() const { return instances_.size(); }
  int nginx_port() const { return nginx_->port(); }
  testing::NginxServer& nginx() { return *nginx_; }
  testing::ScriptedModelServer& model() { return *model_; }
  testing::PostgresServer& postgres() { return *postgres_; }

  // Starts instance `i` again with its configuration and waits until it is
  // ready.
  ::testing::AssertionResult Restart(std::size_t i);

  // One query on this test's database: the first column of the first row.
  std::string Scalar(const std::string& sql);
  // Every run of the database, by run id.
  std::map<std::string, StoredRun> StoredRuns();
  // The instance whose id the database stores for `run_id` ("" if none).
  DiagdInstance* ExecutingInstance(const std::string& run_id);
  // How many model calls carried `marker` (the calls of one chat).
  std::size_t ModelCallsFor(const std::string& marker);
  // Waits until `run_id` is stored with a status other than RUNNING.
  ::testing::AssertionResult WaitUntilEnded(const std::string& run_id,
                                            std::chrono::milliseconds timeout);
  // Every instance's log, for failure messages.
  std::string Logs() const;

  std::filesystem::path dir_;

 private:
  std::string InstanceConfig(const DiagdInstance& instance) const;

  testing::PostgresServer* postgres_ = nullptr;
  std::string database_url_;
  std::string database_;
  ClusterOptions options_;
  std::unique_ptr<testing::ScriptedModelServer> model_;
  std::vector<std::unique_ptr<DiagdInstance>> instances_;
  std::unique_ptr<testing::NginxServer> nginx_;
};

}  // namespace diagd::cluster_testing
