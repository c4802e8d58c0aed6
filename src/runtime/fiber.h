// Fibers: many runs executed by a few threads, each run on a small stack of
// its own that it keeps while it waits. A run spends nearly all its life
// waiting on a model; a parked fiber holds no thread, and once it has waited
// about a second its stack pages below the point where it parked are handed
// back to the kernel (one pass over all such stacks, from one worker), so
// what a waiting run costs is the live part of its stack and its own data
// (docs/server.md, "Execution"). A finished fiber's stack is kept for the
// next one, its pages likewise given back once idle.
//
// The code a fiber runs is ordinary blocking code. The few places that
// wait on purpose ask `OnFiber()` and then `Park` instead of blocking the
// thread: the HTTP client (a transfer driven by one shared thread),
// `SleepFor` and `Condition`. A call that may block for long (a SQL
// statement on a remote database) goes through `RunBlocking`, which runs it
// on a thread of the pool's blocking set while the fiber is parked. The
// rest (local documents and log reads, the store's fsync) holds its worker
// for its few milliseconds; there are a few workers more than cores.
//
// Rules for code that runs on a fiber, because it may resume on another
// worker after a `Park`: hold no lock across a park, keep no address of a
// thread_local across one, and never park inside a catch handler or while
// an exception unwinds (the C++ runtime keeps those per thread).
//
// A fiber's stack is small (a run's: 512 KiB), so code on one keeps its
// depth bounded whatever its input: no recursion over user text (libstdc++'s
// std::regex recurses once per character it matches). Overflowing the stack
// is fatal, but never silent: below each stack lies a 64 KiB guard region
// (address space, no memory), and the first FiberPool installs, once for
// the process, a SIGSEGV and SIGBUS handler that runs on an alternate
// signal stack of each worker. A fault of the running fiber in its guard
// region (where any frame up to 64 KiB that runs past the stack lands)
// writes one line to stderr,
//   diagd: a run overflowed its 512 KiB fiber stack (guard page hit); aborting
// naming the stack size, then re-raises the signal with its default action:
// the process dies of it, with a core dump, as without the handler. Any other
// fault goes to the handler installed before the first pool, or to the
// default action. A SIGSEGV handler installed after the first pool replaces
// this one.
//
// Thread safety: `Spawn` may be called from any thread; `Park` and
// `SleepFor` from the fiber itself; the wake handed to `Park`'s `arm` from
// any thread, once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace diagd::runtime {

class FiberPool {
 public:
  // `workers` threads; each fiber's stack reserves `stack_bytes` of address
  // space (plus a 64 KiB guard region), of which only touched pages cost memory. Up
  // to `blocking_threads` more threads are started as `RunBlocking` calls
  // need them; past that, calls wait their turn (parked). With none,
  // `RunBlocking` runs its call on the worker.
  FiberPool(int workers, std::size_t stack_bytes, int blocking_threads = 0);
  // Waits until every spawned fiber has ended, then joins the threads.
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  // Starts `body` on a fiber of its own; false when no stack can be had.
  // An exception that escapes `body` ends the process, as on a thread.
  bool Spawn(std::function<void()> body);

  int live_fibers() const;

  // Runs `went_idle` once each time the pool has been idle (no fiber alive)
  // for `after`: on a worker, without the pool's lock held; a fiber spawned
  // meanwhile starts the wait again, so under steady load it never runs.
  // Set it before the first Spawn.
  void OnIdle(std::chrono::nanoseconds after, std::function<void()> went_idle);

 private:
  struct State;
  friend struct Fiber;
  std::unique_ptr<State> state_;
};

// True when the calling code runs on a fiber of a FiberPool.
bool OnFiber();

// Makes a parked fiber runnable again. Call once, from any thread.
using Wake = std::function<void()>;

// Parks the calling fiber (which must be on a fiber). Once the fiber is off
// its worker, `arm` runs on that worker's thread with the fiber's `Wake`;
// `arm` starts whatever will call it (it may call it at once) and must not
// touch the fiber's objects after that. Park returns after the wake, on
// whichever worker resumes the fiber.
void Park(std::function<void(Wake)> arm);

// Runs `call` where blocking does no harm: on a fiber, on a blocking thread
// of its pool while the fiber is parked (so a slow query holds no worker);
// elsewhere on the calling thread. An exception from `call` is rethrown
// here.
void RunBlocking(const std::function<void()>& call);

// Waits `duration`: on a fiber by parking it (its worker serves others
// meanwhile), elsewhere by sleeping the thread.
void SleepFor(std::chrono::nanoseconds duration);

// A condition variable that a fiber waits on by parking and a thread by
// blocking, used with a std::mutex like std::condition_variable.
//
// Thread safety: call both with the mutex of `lock` held.
class Condition {
 public:
  // Releases the lock while waiting; returns with it held after a
  // NotifyAll (or spuriously: wait in a loop on the predicate).
  void Wait(std::unique_lock<std::mutex>& lock);
  void NotifyAll();

 private:
  std::condition_variable blocked_;
  std::vector<Wake> parked_;
  std::uint64_t generation_ = 0;  // counts NotifyAll calls: no wake is lost
};

}  // namespace diagd::runtime
