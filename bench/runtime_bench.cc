// The run runtime (runtime/fiber.h) against Boost.Fiber, on what a run asks
// of it: a fiber started and ended per run, a park woken from another
// thread per model or HTTP call (as the transfer engine wakes runs), and
// the memory a waiting run's stack holds. Boost.Fiber is measured when it
// is installed (libboost-fiber-dev; CMake finds it). Prints one table.
//
//   build/bench/runtime_bench [--rounds R]
//
// Each figure is the median of R rounds (default 5). Both runtimes get the
// same workers (2), 512 KiB stacks with a guard page below, and the same
// waking thread.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/fiber.h"

#if DIAGD_BENCH_BOOST_FIBER
#include <boost/fiber/all.hpp>
#endif

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWorkers = 2;
constexpr std::size_t kStackBytes = 512 * 1024;
constexpr int kSpawns = 100'000;
// Spawned in batches, each waited for: a run's fiber ends about as often as
// one starts, and fibers piled up past the kernel's limit of mappings
// (two a guarded stack) would fail.
constexpr int kSpawnBatch = 1'000;
constexpr int kRoundTrips = 100'000;
constexpr int kConcurrentParkers = 100;
constexpr int kParkedFibers = 10'000;
constexpr std::size_t kTouchedStackBytes = 64 * 1024;
// Longer than the runtime's give-back delay (about a second).
constexpr auto kParkedFor = std::chrono::milliseconds(1500);

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Touches `kTouchedStackBytes` of stack, a run's deepest call (a backend,
// libcurl), before it returns and the fiber parks higher up.
[[gnu::noinline]] int TouchStack() {
  volatile char scratch[kTouchedStackBytes];
  for (std::size_t i = 0; i < sizeof(scratch); i += 512) scratch[i] = 1;
  return scratch[0];
}

// A plain thread that runs what it is handed, as the transfer engine's
// thread calls a parked run's wake when its transfer ends.
class Waker {
 public:
  Waker() : thread_([this] { Loop(); }) {}
  ~Waker() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void Post(std::function<void()> call) {
    {
      std::lock_guard lock(mu_);
      calls_.push_back(std::move(call));
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || !calls_.empty(); });
      if (calls_.empty()) return;
      auto call = std::move(calls_.front());
      calls_.pop_front();
      lock.unlock();
      call();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> calls_;
  bool stopping_ = false;
  std::thread thread_;
};

// Counts finished fibers; the benchmark's thread waits for all of them.
class Countdown {
 public:
  explicit Countdown(int count) : left_(count) {}
  void Done() {
    if (left_.fetch_sub(1) != 1) return;
    std::lock_guard lock(mu_);
    zero_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return zero_; });
  }

 private:
  std::atomic<int> left_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool zero_ = false;
};

struct Figures {
  double spawn_us = 0;              // spawn and finish, per fiber
  double round_trip_us = 0;         // park and wake from another thread, one fiber
  double round_trip_many_us = 0;    // the same, 100 fibers at once, per round trip
  double parked_kib = 0;            // memory per parked fiber, just parked
  double parked_idle_kib = 0;       // the same, once parked for 1.5 s
};

// --- diagd's runtime ---------------------------------------------------

namespace runtime = diagd::runtime;

double OursSpawn() {
  runtime::FiberPool pool(kWorkers, kStackBytes);
  auto start = Clock::now();
  for (int batch = 0; batch < kSpawns / kSpawnBatch; ++batch) {
    Countdown done(kSpawnBatch);
    for (int i = 0; i < kSpawnBatch; ++i) pool.Spawn([&] { done.Done(); });
    done.Wait();
  }
  return SecondsSince(start) * 1e6 / kSpawns;
}

double OursRoundTrip(int fibers) {
  runtime::FiberPool pool(kWorkers, kStackBytes);
  Waker waker;
  Countdown done(fibers);
  const int each = kRoundTrips / fibers;
  auto start = Clock::now();
  for (int f = 0; f < fibers; ++f) {
    pool.Spawn([&] {
      for (int i = 0; i < each; ++i) {
        runtime::Park([&](runtime::Wake wake) { waker.Post(std::move(wake)); });
      }
      done.Done();
    });
  }
  done.Wait();
  return SecondsSince(start) * 1e6 / (each * fibers);
}

void OursParked(Figures& figures) {
  runtime::FiberPool pool(kWorkers, kStackBytes);
  std::mutex mu;
  std::vector<runtime::Wake> wakes;
  Countdown done(kParkedFibers);
  const std::size_t before = ResidentBytes();
  for (int i = 0; i < kParkedFibers; ++i) {
    pool.Spawn([&] {
      TouchStack();
      runtime::Park([&](runtime::Wake wake) {
        std::lock_guard lock(mu);
        wakes.push_back(std::move(wake));
      });
      done.Done();
    });
  }
  while (true) {
    {
      std::lock_guard lock(mu);
      if (wakes.size() == kParkedFibers) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  figures.parked_kib = (ResidentBytes() - before) / 1024.0 / kParkedFibers;
  std::this_thread::sleep_for(kParkedFor);
  figures.parked_idle_kib = (ResidentBytes() - before) / 1024.0 / kParkedFibers;
  std::vector<runtime::Wake> all;
  {
    std::lock_guard lock(mu);
    all.swap(wakes);
  }
  for (auto& wake : all) wake();
  done.Wait();
}

Figures Ours(int rounds) {
  std::vector<double> spawn, trip, trip_many, parked, parked_idle;
  for (int r = 0; r < rounds; ++r) {
    spawn.push_back(OursSpawn());
    trip.push_back(OursRoundTrip(1));
    trip_many.push_back(OursRoundTrip(kConcurrentParkers));
    Figures memory;
    OursParked(memory);
    parked.push_back(memory.parked_kib);
    parked_idle.push_back(memory.parked_idle_kib);
  }
  return {Median(spawn), Median(trip), Median(trip_many), Median(parked), Median(parked_idle)};
}

// --- Boost.Fiber ---------------------------------------------------------

#if DIAGD_BENCH_BOOST_FIBER
namespace fibers = boost::fibers;

// Boost.Fiber runs a fiber on the thread that made it. Its work-sharing
// algorithms (algo::shared_work, work_stealing) share one ready queue, but
// a worker asleep in it is not woken by a fiber another thread adds (each
// algorithm wakes only its own thread), so with sleeping workers a spawn
// from outside waits forever, and with spinning ones every idle worker
// burns a core. So each worker keeps the default scheduler and takes
// launches from a fiber-aware channel: a launch posted from any thread wakes
// a worker, which starts the fiber on itself (where it stays). A wake from
// a foreign thread goes through Boost's own primitives.
class BoostPool {
 public:
  BoostPool() {
    for (int i = 0; i < kWorkers; ++i) {
      threads_.emplace_back([this] {
        std::function<void()> launch;
        while (launches_.pop(launch) == fibers::channel_op_status::success) launch();
      });
    }
  }
  ~BoostPool() {
    launches_.close();
    for (auto& thread : threads_) thread.join();
  }

  // Each worker has an allocator of its own: a pooled allocator's pool is
  // not thread-safe, and a fiber ends on the worker that started it.
  template <typename Stack, typename Body>
  void Spawn(Body body) {
    launches_.push([body = std::move(body)]() mutable {
      thread_local Stack stack(kStackBytes);
      fibers::fiber(std::allocator_arg, stack, std::move(body)).detach();
    });
  }

 private:
  fibers::buffered_channel<std::function<void()>> launches_{1024};
  std::vector<std::thread> threads_;
};

// One fiber-aware event: set from any thread, waited on by one fiber.
class BoostEvent {
 public:
  void Set() {
    std::unique_lock lock(mu_);
    set_ = true;
    cv_.notify_one();
  }
  void WaitAndReset() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return set_; });
    set_ = false;
  }

 private:
  fibers::mutex mu_;
  fibers::condition_variable cv_;
  bool set_ = false;
};

template <typename Stack>
double BoostSpawn() {
  BoostPool pool;
  auto start = Clock::now();
  for (int batch = 0; batch < kSpawns / kSpawnBatch; ++batch) {
    Countdown done(kSpawnBatch);
    for (int i = 0; i < kSpawnBatch; ++i) {
      pool.Spawn<Stack>([&] { done.Done(); });
    }
    done.Wait();
  }
  return SecondsSince(start) * 1e6 / kSpawns;
}

double BoostRoundTrip(int count) {
  BoostPool pool;
  Waker waker;
  Countdown done(count);
  const int each = kRoundTrips / count;
  std::vector<BoostEvent> events(static_cast<std::size_t>(count));
  auto start = Clock::now();
  for (int f = 0; f < count; ++f) {
    BoostEvent* event = &events[static_cast<std::size_t>(f)];
    pool.Spawn<fibers::protected_fixedsize_stack>([&, event] {
      for (int i = 0; i < each; ++i) {
        waker.Post([event] { event->Set(); });
        event->WaitAndReset();
      }
      done.Done();
    });
  }
  done.Wait();
  return SecondsSince(start) * 1e6 / (each * count);
}

void BoostParked(Figures& figures) {
  BoostPool pool;
  fibers::mutex mu;
  fibers::condition_variable cv;
  bool go = false;
  std::atomic<int> parked{0};
  Countdown done(kParkedFibers);
  const std::size_t before = ResidentBytes();
  for (int i = 0; i < kParkedFibers; ++i) {
    pool.Spawn<fibers::protected_fixedsize_stack>([&] {
      TouchStack();
      std::unique_lock lock(mu);
      ++parked;
      cv.wait(lock, [&] { return go; });
      lock.unlock();
      done.Done();
    });
  }
  while (parked.load() < kParkedFibers) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  figures.parked_kib = (ResidentBytes() - before) / 1024.0 / kParkedFibers;
  std::this_thread::sleep_for(kParkedFor);
  figures.parked_idle_kib = (ResidentBytes() - before) / 1024.0 / kParkedFibers;
  {
    std::unique_lock lock(mu);
    go = true;
  }
  cv.notify_all();
  done.Wait();
}

Figures Boost(int rounds, double& pooled_spawn_us) {
  std::vector<double> spawn, pooled, trip, trip_many, parked, parked_idle;
  for (int r = 0; r < rounds; ++r) {
    spawn.push_back(BoostSpawn<fibers::protected_fixedsize_stack>());
    pooled.push_back(BoostSpawn<fibers::pooled_fixedsize_stack>());
    trip.push_back(BoostRoundTrip(1));
    trip_many.push_back(BoostRoundTrip(kConcurrentParkers));
    Figures memory;
    BoostParked(memory);
    parked.push_back(memory.parked_kib);
    parked_idle.push_back(memory.parked_idle_kib);
  }
  pooled_spawn_us = Median(pooled);
  return {Median(spawn), Median(trip), Median(trip_many), Median(parked), Median(parked_idle)};
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
  }
  std::printf("medians of %d rounds; %d workers, %zu KiB stacks\n", rounds, kWorkers,
              kStackBytes / 1024);
  std::printf("%-52s %12s %12s\n", "", "diagd", "Boost.Fiber");
  Figures ours = Ours(rounds);
#if DIAGD_BENCH_BOOST_FIBER
  double pooled_spawn = 0;
  Figures boost = Boost(rounds, pooled_spawn);
  auto row = [](const char* name, double a, double b, const char* unit) {
    std::printf("%-52s %9.2f %-2s %9.2f %-2s\n", name, a, unit, b, unit);
  };
#else
  Figures boost;
  auto row = [](const char* name, double a, double, const char* unit) {
    std::printf("%-52s %9.2f %-2s %12s\n", name, a, unit, "(not built)");
  };
#endif
  row("spawn and finish, per fiber", ours.spawn_us, boost.spawn_us, "us");
#if DIAGD_BENCH_BOOST_FIBER
  std::printf("%-52s %12s %9.2f us\n", "  the same on pooled stacks without a guard page", "",
              pooled_spawn);
#endif
  row("park, woken from another thread: one fiber", ours.round_trip_us, boost.round_trip_us,
      "us");
  row("  100 fibers at once, per round trip", ours.round_trip_many_us, boost.round_trip_many_us,
      "us");
  row("memory per parked fiber (64 KiB touched), parked", ours.parked_kib, boost.parked_kib, "KiB");
  row("  once parked 1.5 s", ours.parked_idle_kib, boost.parked_idle_kib, "KiB");
  return 0;
}
