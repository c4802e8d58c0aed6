// Load driver for diagd serve (docs/performance.md, "Server under load" and
// "Several instances").
//
// Starts the diagd binary as its own process (so its memory is measured
// alone) over the bundled demo workspace, against the scripted model server
// in this process (it plays a diagnosis script, it is no model; an Asio
// server that holds thousands of delayed requests), then sends N chats at
// once and waits for all of them. Each chat is a full diagnosis:
// `route: diagnosis`, T tool calls, the conclusion and the semantic guard,
// so T + 2 model calls of L ms each.
//
// Reports wall time, throughput, each run's latency, the latency diagd adds
// (a run's wall time minus its model calls x L and its tools' duration_ms,
// so the HTTP client and model-server overhead count against diagd), and the
// server's memory per concurrent run (peak RSS during the load minus RSS
// after a warm-up run, over N) and per waiting run: with `--hold-ms H` the
// first N model requests (every run's first diagnosis turn) are answered H
// ms late instead of L, and the server's RSS is read once all N are
// waiting (min(1.5 s, H/2) after the last one arrived), so the figure is
// what a run costs while it waits on its model. `--hold-turn K` holds each
// run's K-th diagnosis turn instead (the one after K - 1 tool results), to
// read what a run holds once its conversation has grown.
//
//   server_load [--runs N] [--tool-turns T] [--latency-ms L] [--max-events E]
//               [--hold-ms H] [--hold-turn K] [--keep-alive 0|1] [--warm-loads K]
//               [--idle-ms I]
//               [--diagd PATH]
//               [--instances I] [--store sqlite|postgres] [--redis 0|1]
//
// `--keep-alive 1`: the scripted model server keeps its connections alive, as
// a provider does, instead of closing each after one answer.
//
// `--warm-loads K`: before the measured load, K loads of N chats the same
// (not measured), so the measured one runs on a server that has been at
// that peak before: its heap and fiber stacks already mapped, as on an
// instance that has served for a while. The default (0) measures a fresh
// server, whose every page of the peak is faulted in during the load. With
// K > 0 the baseline RSS holds what the earlier loads left mapped, so the
// per-concurrent-run memory is only what the load added beyond it. A warm
// run that is not released fails the driver (exit 1), as a measured one does.
//
// `--idle-ms I`: after the load, the server's RSS once it has been idle
// I ms: what of the peak it gives back to the system on its own.
//
// `--store postgres`: the driver starts a private PostgreSQL (a database of
// its own as `storage.runs`) and a private Redis (`storage.canonical`: the
// canonical records and the run bus), as the tests do, and I instances of
// diagd serve on them, each with its own `server.instance_id` and port. The
// driver is the balancer: chat k goes to instance k mod I. `--store sqlite`
// (the default) gives each instance a SQLite file of its own (with I > 1 they
// share nothing: not a cluster). CPU is reported per component: the diagd
// instances (summed), PostgreSQL (the postmaster and every backend seen
// while sampling), redis-server, and the driver (its scripted model server).
// `--redis 0` leaves Redis out (PostgreSQL alone, no run bus: the instances
// then write no event to the store as it happens), to tell the two apart.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process_cpu.h"
#include "testing/free_port.h"
#include "testing/postgres_server.h"
#include "testing/proc_status.h"
#include "testing/redis_server.h"
#include "testing/scripted_diagnosis.h"
#include "testing/scripted_model_server.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using diagd::bench::CpuSeconds;
using diagd::bench::CpuTimes;
using diagd::bench::ProcessTreeCpu;
using diagd::testing::ProcStatus;

// How many tool messages a chat request carries.
int ToolResultsIn(std::string_view body) {
  int count = 0;
  for (std::size_t at = body.find(R"("role":"tool")"); at != std::string_view::npos;
       at = body.find(R"("role":"tool")", at + 1)) {
    ++count;
  }
  return count;
}

struct Options {
  int runs = 1000;
  int tool_turns = 7;
  int latency_ms = 200;
  int max_events = 30;  // tools.logs.max_events: how much each tool result holds
  int hold_ms = 0;      // > 0: hold every run's first model call, and measure then
  int hold_turn = 1;    // which diagnosis turn of each run `hold_ms` holds
  int warm_loads = 0;   // loads of `runs` chats before the measured one
  int idle_ms = 0;      // > 0: report RSS after this long idle, after the load
  bool keep_alive = false;  // the scripted model server keeps connections alive
  int instances = 1;
  bool postgres = false;  // --store postgres: PostgreSQL run store, Redis canonical store
  bool redis = true;      // with --store postgres; --redis 0: no canonical store, no run bus
  std::string diagd = DIAGD_BINARY;
};

struct Outcome {
  Clock::time_point start;
  Clock::time_point end;
  int port = 0;
  int status = 0;
  std::string run_id;
  std::string release_outcome;
  std::string failure;  // what went wrong, when the run did not come back released
};

// The shared stores of `--store postgres`; both empty with `--store sqlite`.
struct Backends {
  std::unique_ptr<diagd::testing::PostgresServer> postgres;
  std::string database_url;
  std::unique_ptr<diagd::testing::RedisServer> redis;
};

// One `diagd serve` process.
struct Instance {
  std::string id;
  int port = 0;
  fs::path dir;
  pid_t pid = -1;
  long baseline_kb = 0;
  long peak_kb = 0;
  long peak_threads = 0;
  long waiting_kb = 0;
  CpuTimes cpu_before;
  fs::path log() const { return dir / "server.log"; }
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteConfig(const Instance& instance, const std::string& model_url, const Options& options,
                 const Backends& backends) {
  int runs = options.runs;
  std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
  std::ofstream config(instance.dir / "diagd.toml");
  config << "now = \"2026-11-29T10:30:00Z\"\n"
         << "[server]\nlisten = \"127.0.0.1:" << instance.port << "\"\n"
         << "instance_id = \"" << instance.id << "\"\n"
         << "max_concurrent_runs = " << runs << "\nmax_queued_runs = " << runs << "\n"
         << "max_connections = " << 4 * runs + 64 << "\n"
         << "[storage]\n";
  if (options.postgres) {
    config << "runs = \"" << backends.database_url << "\"\n";
    if (backends.redis != nullptr) config << "canonical = \"" << backends.redis->Url() << "\"\n";
  } else {
    config << "runs = \"sqlite:" << (instance.dir / "runs.db").string() << "\"\n";
  }
  config << "[model]\nprovider = \"openai\"\nbase_url = \"" << model_url << "\"\n"
         << "name = \"scripted\"\ntimeout_seconds = 120\n"
         << "[harness]\nmax_run_seconds = 600\n"
         << "[tools.documents]\npath = \"" << demo << "/docs\"\ncache_path = \""
         << (instance.dir / "cache").string() << "\"\n"
         << "[tools.logs]\npath = \"" << demo << "/logs\"\nmax_events = " << options.max_events
         << "\n"
         << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n";
}

// Starts PostgreSQL (and a database) and Redis for `--store postgres`.
bool StartBackends(const Options& options, Backends& backends) {
  if (!options.postgres) return true;
  auto postgres = diagd::testing::PostgresServer::Start();
  if (!postgres) {
    std::cerr << "PostgreSQL did not start: " << postgres.error().ToString() << "\n";
    return false;
  }
  backends.postgres = std::move(*postgres);
  auto database = backends.postgres->CreateDatabase();
  if (!database) {
    std::cerr << "no database: " << database.error().ToString() << "\n";
    return false;
  }
  backends.database_url = *database;
  if (!options.redis) return true;
  auto redis = diagd::testing::RedisServer::Start();
  if (!redis) {
    std::cerr << "Redis did not start: " << redis.error().ToString() << "\n";
    return false;
  }
  backends.redis = std::move(*redis);
  return true;
}

pid_t Launch(const std::string& diagd, const Instance& instance) {
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen(instance.log().c_str(), "w", stderr);
    execl(diagd.c_str(), diagd.c_str(), "serve", "--config",
          (instance.dir / "diagd.toml").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Starts every instance at once (on PostgreSQL they queue on the migration
// lock), then waits until each one listens.
bool StartInstances(const Options& options, const std::string& model_url,
                    const Backends& backends, const fs::path& dir,
                    std::vector<Instance>& instances) {
  for (int i = 0; i < options.instances; ++i) {
    Instance instance;
    instance.id = "load-" + std::to_string(i + 1);
    instance.port = diagd::testing::FreeLoopbackPort();
    instance.dir = dir / instance.id;
    fs::create_directories(instance.dir);
    WriteConfig(instance, model_url, options, backends);
    instance.pid = Launch(options.diagd, instance);
    instances.push_back(std::move(instance));
  }
  for (const Instance& instance : instances) {
    while (ReadFile(instance.log()).find("\"listening\"") == std::string::npos) {
      if (waitpid(instance.pid, nullptr, WNOHANG) != 0) {
        std::cerr << instance.id << ": diagd serve did not start:\n" << ReadFile(instance.log());
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return true;
}

asio::awaitable<void> Chat(int port, std::string body, Outcome& outcome) {
  auto executor = co_await asio::this_coro::executor;
  beast::tcp_stream stream(executor);
  outcome.port = port;
  outcome.start = Clock::now();
  auto [connect_error] = co_await stream.async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)),
      asio::as_tuple(asio::use_awaitable));
  if (connect_error) {
    outcome.failure = "connect: " + connect_error.message();
    co_return;
  }
  http::request<http::string_body> request{http::verb::post, "/api/v1/chat", 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  request.keep_alive(false);
  request.body() = std::move(body);
  request.prepare_payload();
  auto [write_error, written] =
      co_await http::async_write(stream, request, asio::as_tuple(asio::use_awaitable));
  if (write_error) {
    outcome.failure = "write: " + write_error.message();
    co_return;
  }
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  auto [read_error, read] =
      co_await http::async_read(stream, buffer, response, asio::as_tuple(asio::use_awaitable));
  outcome.end = Clock::now();
  if (read_error) {
    outcome.failure = "read: " + read_error.message();
    co_return;
  }
  outcome.status = response.result_int();
  boost::system::error_code ec;
  auto json = boost::json::parse(response.body(), ec);
  if (!ec && json.is_object() && json.as_object().contains("run_id")) {
    outcome.run_id = std::string(json.at("run_id").as_string());
    if (json.at("release_outcome").is_string()) {
      outcome.release_outcome = std::string(json.at("release_outcome").as_string());
    }
  }
  if (outcome.status != 200 || outcome.release_outcome != "DIAGNOSIS") {
    outcome.failure = "HTTP " + std::to_string(outcome.status) + ": " +
                      response.body().substr(0, 300);
  }
}

// N chats at once, chat k to ports[k mod ports.size()]: the driver is the
// balancer.
std::vector<Outcome> SendChats(const std::vector<int>& ports, int n) {
  asio::io_context io(1);
  std::vector<Outcome> outcomes(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    asio::co_spawn(io,
                   Chat(ports[k % ports.size()],
                        R"({"message":"订单服务为什么大量 500？","route":"diagnosis"})",
                        outcomes[k]),
                   asio::detached);
  }
  io.run();
  return outcomes;
}

int Failures(const std::vector<Outcome>& outcomes) {
  auto failed = [](const Outcome& outcome) { return !outcome.failure.empty(); };
  return static_cast<int>(std::count_if(outcomes.begin(), outcomes.end(), failed));
}

// GET a run record (for its trace) over a plain blocking socket.
boost::json::object RunRecord(int port, const std::string& run_id) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  http::request<http::empty_body> request{http::verb::get, "/api/v1/runs/" + run_id, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(false);
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  return boost::json::parse(response.body()).as_object();
}

// Calls per command since Redis started ("publish" -> n), from INFO
// commandstats over a plain blocking socket.
std::map<std::string, long> RedisCommandCalls(int port) {
  std::map<std::string, long> calls;
  boost::system::error_code ec;
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)),
                 ec);
  if (ec) return calls;
  asio::write(socket, asio::buffer(std::string("INFO commandstats\r\n")), ec);
  asio::streambuf reply;
  std::size_t header = asio::read_until(socket, reply, "\r\n", ec);
  if (ec) return calls;
  std::string length(asio::buffers_begin(reply.data()), asio::buffers_begin(reply.data()) + header);
  reply.consume(header);
  std::size_t body = static_cast<std::size_t>(std::atol(length.c_str() + 1)) + 2;
  if (reply.size() < body) asio::read(socket, reply, asio::transfer_exactly(body - reply.size()), ec);
  std::istringstream lines(std::string(asio::buffers_begin(reply.data()), asio::buffers_end(reply.data())));
  // cmdstat_publish:calls=12,usec=34,...
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("cmdstat_")) continue;
    std::size_t colon = line.find(":calls=");
    if (colon == std::string::npos) continue;
    calls[line.substr(8, colon - 8)] = std::atol(line.c_str() + colon + 7);
  }
  return calls;
}

// What Redis was asked per run during the load: "publish 18.0, hset 7.0, ...".
std::string RedisCallsPerRun(const std::map<std::string, long>& before,
                             const std::map<std::string, long>& after, int runs) {
  std::string text;
  for (const auto& [command, calls] : after) {
    auto earlier = before.find(command);
    long during = calls - (earlier == before.end() ? 0 : earlier->second);
    if (during <= 0 || command == "info") continue;
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.1f", text.empty() ? "" : ", ", command.c_str(),
                  static_cast<double>(during) / runs);
    text += part;
  }
  return text;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--runs") options.runs = std::atoi(argv[i + 1]);
    if (flag == "--tool-turns") options.tool_turns = std::atoi(argv[i + 1]);
    if (flag == "--latency-ms") options.latency_ms = std::atoi(argv[i + 1]);
    if (flag == "--max-events") options.max_events = std::atoi(argv[i + 1]);
    if (flag == "--hold-ms") options.hold_ms = std::atoi(argv[i + 1]);
    if (flag == "--hold-turn") options.hold_turn = std::max(1, std::atoi(argv[i + 1]));
    if (flag == "--diagd") options.diagd = argv[i + 1];
    if (flag == "--idle-ms") options.idle_ms = std::max(0, std::atoi(argv[i + 1]));
    if (flag == "--warm-loads") options.warm_loads = std::max(0, std::atoi(argv[i + 1]));
    if (flag == "--keep-alive") options.keep_alive = std::atoi(argv[i + 1]) != 0;
    if (flag == "--instances") options.instances = std::max(1, std::atoi(argv[i + 1]));
    if (flag == "--store") options.postgres = std::string(argv[i + 1]) == "postgres";
    if (flag == "--redis") options.redis = std::atoi(argv[i + 1]) != 0;
  }
  return options;
}

// Samples the instances' memory and threads every 10 ms, and PostgreSQL's
// processes every 100 ms (their CPU, so that a backend that exits during the
// load is counted up to its last sample), until `sampling` is false.
struct Sampler {
  const Options& options;
  std::vector<Instance>& instances;
  ProcessTreeCpu* postgres;  // null without PostgreSQL
  const std::atomic<int>& requests;
  std::atomic<bool> sampling{true};

  void Run() {
    for (int tick = 0; sampling; ++tick) {
      if (options.hold_ms > 0 && instances.front().waiting_kb == 0 &&
          requests >= options.runs) {
        // The last request has reached the model: let its run finish parking,
        // and the fibers' idle stack pages be given back (a parked fiber's
        // after a second, runtime/fiber.cc), as for any run waiting on a model
        // that takes seconds.
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1500, options.hold_ms / 2)));
        for (Instance& instance : instances) {
          instance.waiting_kb = ProcStatus(instance.pid, "VmRSS:");
        }
        std::fprintf(stderr, "all %d runs waiting on model call %d\n", options.runs,
                     options.hold_turn);
      }
      for (Instance& instance : instances) {
        instance.peak_kb = std::max(instance.peak_kb, ProcStatus(instance.pid, "VmRSS:"));
        instance.peak_threads =
            std::max(instance.peak_threads, ProcStatus(instance.pid, "Threads:"));
      }
      if (postgres != nullptr && tick % 10 == 0) postgres->Sample();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

// What the load cost each component, and how its runs went.
struct Measured {
  double wall_s = 0;
  CpuTimes diagd;
  CpuTimes postgres;
  CpuTimes redis;
  double driver = 0;
  int postgres_pids = 0;
  int postgres_pids_gone = 0;
  std::string stored_rows;  // rows per run in the PostgreSQL tables, as text
  std::string redis_calls;  // Redis commands per run, as text
};

// Rows per run the load left in the run store's PostgreSQL tables (the
// warm-up runs' included, a handful against N).
std::string StoredRows(const Backends& backends, int runs) {
  const std::string& url = backends.database_url;
  std::string database = url.substr(url.rfind('/') + 1);
  std::string text;
  for (const char* table : {"run_event", "diagnosis_trace_event", "agent_step", "run_observation"}) {
    auto count = backends.postgres->Scalar(database, std::string("SELECT count(*) FROM ") + table);
    char line[128];
    std::snprintf(line, sizeof line, "%s%s %.1f", text.empty() ? "" : ", ", table,
                  count ? std::atof(count->c_str()) / runs : -1.0);
    text += line;
  }
  return text;
}

void Report(const Options& options, const std::vector<Instance>& instances,
            const std::vector<Outcome>& outcomes, const Measured& measured,
            std::size_t largest_request) {
  int ok = 0;
  std::vector<double> latency_ms, added_ms;
  std::map<std::string, int> failures;
  std::map<int, int> per_port;
  for (const auto& outcome : outcomes) {
    if (!outcome.failure.empty()) {
      ++failures[outcome.failure];
      continue;
    }
    ++ok;
    ++per_port[outcome.port];
    double wall = std::chrono::duration<double, std::milli>(outcome.end - outcome.start).count();
    latency_ms.push_back(wall);
    auto record = RunRecord(outcome.port, outcome.run_id);
    double waited = options.hold_ms > 0 ? options.hold_ms - options.latency_ms : 0;
    for (const auto& event : record.at("trace").as_array()) {
      if (event.at("type") == "MODEL_CALL") waited += options.latency_ms;
      if (event.at("type") == "TOOL_CALL_COMPLETED") {
        waited += static_cast<double>(event.at("fields").at("duration_ms").as_int64());
      }
    }
    added_ms.push_back(wall - waited);
  }
  long baseline_kb = 0, peak_kb = 0, waiting_kb = 0, peak_threads = 0;
  for (const Instance& instance : instances) {
    baseline_kb += instance.baseline_kb;
    peak_kb += instance.peak_kb;
    waiting_kb += instance.waiting_kb;
    peak_threads = std::max(peak_threads, instance.peak_threads);
  }
  const double runs = options.runs;
  std::printf("store           %s, %d instance%s (chats spread round-robin by the driver)\n",
              !options.postgres ? "SQLite run store (a file per instance)"
              : options.redis   ? "PostgreSQL run store + Redis canonical store and run bus"
                                : "PostgreSQL run store, no Redis (no run bus)",
              options.instances, options.instances == 1 ? "" : "s");
  std::printf("runs            %d concurrent, %d tool calls + %d model calls each, %d ms per model call\n",
              options.runs, options.tool_turns, options.tool_turns + 2, options.latency_ms);
  std::printf("tool results    up to %d log events each; largest model request %.1f KiB\n",
              options.max_events, static_cast<double>(largest_request) / 1024.0);
  std::printf("completed       %d / %d released DIAGNOSIS", ok, options.runs);
  for (const Instance& instance : instances) {
    if (instances.size() > 1) std::printf("; %s %d", instance.id.c_str(), per_port[instance.port]);
  }
  std::printf("\n");
  for (const auto& [failure, count] : failures) {
    std::printf("failed          %d x %s\n", count, failure.c_str());
  }
  std::printf("wall time       %.2f s (floor %.2f s)\n", measured.wall_s,
              (options.tool_turns + 2) * options.latency_ms / 1000.0);
  std::printf("throughput      %.1f runs/s\n", ok / measured.wall_s);
  std::printf("run latency     p50 %.0f ms  p99 %.0f ms\n", Percentile(latency_ms, 0.5),
              Percentile(latency_ms, 0.99));
  std::printf("added by diagd  p50 %.1f ms  p99 %.1f ms  (per run, not waiting on model or tools)\n",
              Percentile(added_ms, 0.5), Percentile(added_ms, 0.99));
  std::printf("server memory   baseline %.1f MiB, peak %.1f MiB: %.1f KiB per concurrent run%s\n",
              baseline_kb / 1024.0, peak_kb / 1024.0,
              static_cast<double>(peak_kb - baseline_kb) / runs,
              options.warm_loads > 0 ? " (beyond what the warm loads left mapped)" : "");
  if (waiting_kb > 0) {
    std::printf("waiting runs    RSS %.1f MiB with all %d waiting on model call %d: %.1f KiB per waiting run\n",
                waiting_kb / 1024.0, options.runs, options.hold_turn,
                static_cast<double>(waiting_kb - baseline_kb) / runs);
  }
  std::printf("server threads  peak %ld (per instance)\n", peak_threads);
  double diagd_cpu = measured.diagd.total();
  std::printf("cpu             diagd %.2f s (%.1f ms per run), driver and scripted model %.2f s\n",
              diagd_cpu, 1000.0 * diagd_cpu / runs, measured.driver);
  std::printf("diagd cpu split user %.2f s, system %.2f s (kernel share %.0f%%)\n",
              measured.diagd.user, measured.diagd.system,
              diagd_cpu > 0 ? 100.0 * measured.diagd.system / diagd_cpu : 0.0);
  if (options.postgres) {
    std::printf("cpu postgres    %.2f s (%.2f ms per run; user %.2f, system %.2f), %d processes seen, %d gone by the end\n",
                measured.postgres.total(), 1000.0 * measured.postgres.total() / runs,
                measured.postgres.user, measured.postgres.system, measured.postgres_pids,
                measured.postgres_pids_gone);
    std::printf("stored per run  %s\n", measured.stored_rows.c_str());
    std::printf("cpu redis       %.2f s (%.2f ms per run; user %.2f, system %.2f)\n",
                measured.redis.total(), 1000.0 * measured.redis.total() / runs,
                measured.redis.user, measured.redis.system);
    if (!measured.redis_calls.empty()) {
      std::printf("redis per run   %s\n", measured.redis_calls.c_str());
    }
  }
  std::printf("cpu per run     diagd %.2f ms, postgres %.2f ms, redis %.2f ms, driver %.2f ms\n",
              1000.0 * diagd_cpu / runs, 1000.0 * measured.postgres.total() / runs,
              1000.0 * measured.redis.total() / runs, 1000.0 * measured.driver / runs);
}

}  // namespace

int main(int argc, char** argv) {
  Options options = Parse(argc, argv);
  fs::path dir = fs::temp_directory_path() / ("diagd-server-load-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // The scripted diagnosis, noting the largest request it is sent (a run's
  // last turn: the whole conversation so far).
  std::atomic<std::size_t> largest_request{0};
  // Requests of the measured load (the warm-up runs' are not counted).
  std::atomic<bool> counting{false};
  std::atomic<int> requests{0};
  auto script = diagd::testing::ScriptedDiagnosis(options.tool_turns,
                                                  std::chrono::milliseconds(options.latency_ms));
  diagd::testing::ScriptedModelServer model(
      [&](const diagd::testing::ScriptedModelServer::RecordedRequest& request) {
        std::size_t size = request.body.size();
        std::size_t seen = largest_request.load();
        while (size > seen && !largest_request.compare_exchange_weak(seen, size)) {
        }
        auto reply = script(request);
        // All runs start at once and a run's second request needs its first
        // answer: the first N requests are every run's first turn. A later
        // turn is told by the tool results its request carries.
        const bool held_turn = options.hold_turn == 1 ||
                               ToolResultsIn(request.body) == options.hold_turn - 1;
        if (counting && held_turn && requests++ < options.runs && options.hold_ms > 0) {
          reply.delay = std::chrono::milliseconds(options.hold_ms);
        }
        return reply;
      });
  model.set_record_requests(false);
  model.set_keep_alive(options.keep_alive);

  Backends backends;
  std::vector<Instance> instances;
  auto stop_instances = [&] {
    for (Instance& instance : instances) kill(instance.pid, SIGTERM);
  };
  if (!StartBackends(options, backends) ||
      !StartInstances(options, model.BaseUrl(), backends, dir, instances)) {
    stop_instances();
    std::cerr << "logs kept in " << dir << "\n";
    return 1;
  }
  std::vector<int> ports;
  for (const Instance& instance : instances) ports.push_back(instance.port);

  // Warm-up, a run on each instance: indexes built, code paged in, a first
  // run in every cache, the store's connections open.
  // Their failures count too: a server that failed while warming would be
  // measured in another state than the one reported.
  int warm_failures = Failures(SendChats(ports, options.instances));
  for (int load = 0; load < options.warm_loads; ++load) {
    warm_failures += Failures(SendChats(ports, options.runs));
  }
  if (warm_failures > 0) {
    std::printf("warm-up         %d runs did not come back released\n", warm_failures);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (Instance& instance : instances) {
    instance.baseline_kb = ProcStatus(instance.pid, "VmRSS:");
    instance.peak_kb = instance.baseline_kb;
    instance.cpu_before = CpuSeconds(instance.pid);
  }
  std::unique_ptr<ProcessTreeCpu> postgres_cpu;
  CpuTimes redis_before;
  std::map<std::string, long> redis_calls_before;
  if (options.postgres) {
    postgres_cpu = std::make_unique<ProcessTreeCpu>(backends.postgres->pid());
    postgres_cpu->MarkStart();
    if (backends.redis != nullptr) {
      redis_before = CpuSeconds(backends.redis->pid());
      redis_calls_before = RedisCommandCalls(backends.redis->port());
    }
  }
  double driver_cpu_before = CpuSeconds(::getpid()).total();

  Sampler sampler{options, instances, postgres_cpu.get(), requests};
  counting = true;
  std::thread sampling([&] { sampler.Run(); });
  auto started = Clock::now();
  std::vector<Outcome> outcomes = SendChats(ports, options.runs);
  auto finished = Clock::now();
  sampler.sampling = false;
  sampling.join();

  Measured measured;
  measured.wall_s = std::chrono::duration<double>(finished - started).count();
  for (const Instance& instance : instances) {
    measured.diagd = measured.diagd + (CpuSeconds(instance.pid) - instance.cpu_before);
  }
  if (postgres_cpu != nullptr) {
    postgres_cpu->Sample();
    measured.postgres = postgres_cpu->Used();
    measured.postgres_pids = postgres_cpu->pids_seen();
    measured.postgres_pids_gone = postgres_cpu->pids_gone();
    if (backends.redis != nullptr) {
      measured.redis = CpuSeconds(backends.redis->pid()) - redis_before;
      measured.redis_calls = RedisCallsPerRun(
          redis_calls_before, RedisCommandCalls(backends.redis->port()), options.runs);
    }
  }
  measured.driver = CpuSeconds(::getpid()).total() - driver_cpu_before;
  if (options.postgres) measured.stored_rows = StoredRows(backends, options.runs);

  Report(options, instances, outcomes, measured, largest_request.load());
  if (options.idle_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.idle_ms));
    for (const Instance& instance : instances) {
      std::printf("idle memory     %s: RSS %.1f MiB after %d ms idle (peak %.1f, baseline %.1f)\n",
                  instance.id.c_str(), ProcStatus(instance.pid, "VmRSS:") / 1024.0,
                  options.idle_ms, instance.peak_kb / 1024.0, instance.baseline_kb / 1024.0);
    }
  }
  bool all_ok = warm_failures == 0 && Failures(outcomes) == 0;
  stop_instances();
  for (const Instance& instance : instances) {
    int status = 0;
    waitpid(instance.pid, &status, 0);
    std::printf("server exit     %s: %d after SIGTERM\n", instance.id.c_str(),
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  if (all_ok) {
    fs::remove_all(dir);
  } else {
    std::printf("logs kept in    %s\n", dir.c_str());
  }
  return all_ok ? 0 : 1;
}
