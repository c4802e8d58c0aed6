// Load driver for diagd serve (docs/performance.md, "Server under load").
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
// what a run costs while it waits on its model.
//
//   server_load [--runs N] [--tool-turns T] [--latency-ms L] [--max-events E]
//               [--hold-ms H] [--keep-alive 0|1] [--diagd PATH]
//
// `--keep-alive 1`: the scripted model server keeps its connections alive, as
// a provider does, instead of closing each after one answer.
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "testing/free_port.h"
#include "testing/proc_status.h"
#include "testing/scripted_diagnosis.h"
#include "testing/scripted_model_server.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using diagd::testing::ProcStatus;

struct Options {
  int runs = 1000;
  int tool_turns = 7;
  int latency_ms = 200;
  int max_events = 30;  // tools.logs.max_events: how much each tool result holds
  int hold_ms = 0;      // > 0: hold every run's first model call, and measure then
  bool keep_alive = false;  // the scripted model server keeps connections alive
  std::string diagd = DIAGD_BINARY;
};

struct Outcome {
  Clock::time_point start;
  Clock::time_point end;
  int status = 0;
  std::string run_id;
  std::string release_outcome;
};

// CPU seconds a process has used, user and system (the kernel on its
// behalf), from /proc/PID/stat.
struct CpuTimes {
  double user = 0;
  double system = 0;
  double total() const { return user + system; }
};

CpuTimes CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  CpuTimes times;
  const auto ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (int i = 3; fields >> field && i <= 15; ++i) {
    if (i == 14) times.user = std::atof(field.c_str()) / ticks_per_second;
    if (i == 15) times.system = std::atof(field.c_str()) / ticks_per_second;
  }
  return times;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteConfig(const fs::path& dir, int port, const std::string& model_url,
                 const Options& options) {
  int runs = options.runs;
  std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
  std::ofstream(dir / "diagd.toml")
      << "now = \"2026-11-29T10:30:00Z\"\n"
      << "[server]\nlisten = \"127.0.0.1:" << port << "\"\n"
      << "max_concurrent_runs = " << runs << "\nmax_queued_runs = " << runs << "\n"
      << "max_connections = " << 4 * runs + 64 << "\n"
      << "[storage]\nruns = \"sqlite:" << (dir / "runs.db").string() << "\"\n"
      << "[model]\nprovider = \"openai\"\nbase_url = \"" << model_url << "\"\n"
      << "name = \"scripted\"\ntimeout_seconds = 120\n"
      << "[harness]\nmax_run_seconds = 600\n"
      << "[tools.documents]\npath = \"" << demo << "/docs\"\ncache_path = \""
      << (dir / "cache").string() << "\"\n"
      << "[tools.logs]\npath = \"" << demo << "/logs\"\nmax_events = " << options.max_events
      << "\n"
      << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n";
}

asio::awaitable<void> Chat(int port, std::string body, Outcome& outcome) {
  auto executor = co_await asio::this_coro::executor;
  beast::tcp_stream stream(executor);
  outcome.start = Clock::now();
  auto [connect_error] = co_await stream.async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)),
      asio::as_tuple(asio::use_awaitable));
  if (connect_error) co_return;
  http::request<http::string_body> request{http::verb::post, "/api/v1/chat", 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  request.keep_alive(false);
  request.body() = std::move(body);
  request.prepare_payload();
  auto [write_error, written] =
      co_await http::async_write(stream, request, asio::as_tuple(asio::use_awaitable));
  if (write_error) co_return;
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  auto [read_error, read] =
      co_await http::async_read(stream, buffer, response, asio::as_tuple(asio::use_awaitable));
  outcome.end = Clock::now();
  if (read_error) co_return;
  outcome.status = response.result_int();
  boost::system::error_code ec;
  auto json = boost::json::parse(response.body(), ec);
  if (!ec && json.is_object() && json.as_object().contains("run_id")) {
    outcome.run_id = std::string(json.at("run_id").as_string());
    if (json.at("release_outcome").is_string()) {
      outcome.release_outcome = std::string(json.at("release_outcome").as_string());
    }
  }
}

std::vector<Outcome> SendChats(int port, int n) {
  asio::io_context io(1);
  std::vector<Outcome> outcomes(static_cast<std::size_t>(n));
  for (auto& outcome : outcomes) {
    asio::co_spawn(io,
                   Chat(port, R"({"message":"订单服务为什么大量 500？","route":"diagnosis"})",
                        outcome),
                   asio::detached);
  }
  io.run();
  return outcomes;
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
    if (flag == "--diagd") options.diagd = argv[i + 1];
    if (flag == "--keep-alive") options.keep_alive = std::atoi(argv[i + 1]) != 0;
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = Parse(argc, argv);
  fs::path dir = fs::temp_directory_path() / ("diagd-server-load-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // The scripted diagnosis, noting the largest request it is sent (a run's
  // last turn: the whole conversation so far).
  std::atomic<std::size_t> largest_request{0};
  // Requests of the measured load (the warm-up run's are not counted).
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
        // answer: the first N requests are every run's first turn.
        if (counting && requests++ < options.runs && options.hold_ms > 0) {
          reply.delay = std::chrono::milliseconds(options.hold_ms);
        }
        return reply;
      });
  model.set_record_requests(false);
  model.set_keep_alive(options.keep_alive);
  int port = diagd::testing::FreeLoopbackPort();
  WriteConfig(dir, port, model.BaseUrl(), options);

  pid_t server = fork();
  if (server == 0) {
    std::freopen((dir / "server.log").c_str(), "w", stderr);
    execl(options.diagd.c_str(), options.diagd.c_str(), "serve", "--config",
          (dir / "diagd.toml").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  while (ReadFile(dir / "server.log").find("\"listening\"") == std::string::npos) {
    if (waitpid(server, nullptr, WNOHANG) != 0) {
      std::cerr << "diagd serve did not start:\n" << ReadFile(dir / "server.log");
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  // Warm-up: indexes built, code paged in, a first run in every cache.
  SendChats(port, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  long baseline_kb = ProcStatus(server, "VmRSS:");
  CpuTimes server_cpu_before = CpuSeconds(server);
  double driver_cpu_before = CpuSeconds(::getpid()).total();

  std::atomic<bool> sampling{true};
  long peak_kb = baseline_kb;
  long peak_threads = 0;
  long waiting_kb = 0;  // with --hold-ms: RSS once every run waits on its first call
  counting = true;
  std::thread sampler([&] {
    while (sampling) {
      if (options.hold_ms > 0 && waiting_kb == 0 && requests >= options.runs) {
        // The last request has reached the model: let its run finish parking,
        // and the fibers' idle stack pages be given back (a parked fiber's
        // after a second, core/fiber.cc), as for any run waiting on a model
        // that takes seconds.
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1500, options.hold_ms / 2)));
        waiting_kb = ProcStatus(server, "VmRSS:");
        std::fprintf(stderr, "all %d runs waiting on their first model call\n", options.runs);
      }
      peak_kb = std::max(peak_kb, ProcStatus(server, "VmRSS:"));
      peak_threads = std::max(peak_threads, ProcStatus(server, "Threads:"));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  auto started = Clock::now();
  std::vector<Outcome> outcomes = SendChats(port, options.runs);
  auto finished = Clock::now();
  sampling = false;
  sampler.join();
  CpuTimes server_after = CpuSeconds(server);
  CpuTimes server_times{server_after.user - server_cpu_before.user,
                        server_after.system - server_cpu_before.system};
  double server_cpu = server_times.total();
  double driver_cpu = CpuSeconds(::getpid()).total() - driver_cpu_before;

  int ok = 0;
  std::vector<double> latency_ms, added_ms;
  for (const auto& outcome : outcomes) {
    if (outcome.status != 200 || outcome.release_outcome != "DIAGNOSIS") continue;
    ++ok;
    double wall = std::chrono::duration<double, std::milli>(outcome.end - outcome.start).count();
    latency_ms.push_back(wall);
    auto record = RunRecord(port, outcome.run_id);
    double waited = options.hold_ms > 0 ? options.hold_ms - options.latency_ms : 0;
    for (const auto& event : record.at("trace").as_array()) {
      if (event.at("type") == "MODEL_CALL") waited += options.latency_ms;
      if (event.at("type") == "TOOL_CALL_COMPLETED") {
        waited += static_cast<double>(event.at("fields").at("duration_ms").as_int64());
      }
    }
    added_ms.push_back(wall - waited);
  }
  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);

  double wall_s = std::chrono::duration<double>(finished - started).count();
  std::printf("runs            %d concurrent, %d tool calls + %d model calls each, %d ms per model call\n",
              options.runs, options.tool_turns, options.tool_turns + 2, options.latency_ms);
  std::printf("tool results    up to %d log events each; largest model request %.1f KiB\n",
              options.max_events, largest_request.load() / 1024.0);
  std::printf("completed       %d / %d released DIAGNOSIS\n", ok, options.runs);
  std::printf("wall time       %.2f s (floor %.2f s)\n", wall_s,
              (options.tool_turns + 2) * options.latency_ms / 1000.0);
  std::printf("throughput      %.1f runs/s\n", ok / wall_s);
  std::printf("run latency     p50 %.0f ms  p99 %.0f ms\n", Percentile(latency_ms, 0.5),
              Percentile(latency_ms, 0.99));
  std::printf("added by diagd  p50 %.1f ms  p99 %.1f ms  (per run, not waiting on model or tools)\n",
              Percentile(added_ms, 0.5), Percentile(added_ms, 0.99));
  std::printf("server memory   baseline %.1f MiB, peak %.1f MiB: %.1f KiB per concurrent run\n",
              baseline_kb / 1024.0, peak_kb / 1024.0,
              static_cast<double>(peak_kb - baseline_kb) / options.runs);
  if (waiting_kb > 0) {
    std::printf("waiting runs    RSS %.1f MiB with all %d waiting on their first model call: %.1f KiB per waiting run\n",
                waiting_kb / 1024.0, options.runs,
                static_cast<double>(waiting_kb - baseline_kb) / options.runs);
  }
  std::printf("server threads  peak %ld\n", peak_threads);
  std::printf("cpu             diagd %.2f s (%.1f ms per run), driver and scripted model %.2f s\n",
              server_cpu, 1000.0 * server_cpu / options.runs, driver_cpu);
  std::printf("diagd cpu split user %.2f s, system %.2f s (kernel share %.0f%%)\n",
              server_times.user, server_times.system,
              server_cpu > 0 ? 100.0 * server_times.system / server_cpu : 0.0);
  std::printf("server exit     %d after SIGTERM\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  fs::remove_all(dir);
  return ok == options.runs ? 0 : 1;
}
