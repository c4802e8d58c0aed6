#include "runtime/fiber.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/stack_context.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define DIAGD_TSAN_FIBERS 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define DIAGD_ASAN_FIBERS 1
#endif

namespace diagd::runtime {
namespace {

// Boost.Context's fiber switches stacks in a few instructions: it saves
// the callee-saved registers and the floating-point control words, and
// makes no system call (swapcontext sets the signal mask on every switch).
using Context = boost::context::fiber;
using SteadyClock = std::chrono::steady_clock;

// Below the frame a fiber parks in lie what the switch itself writes: that
// frame's locals (with AddressSanitizer's redzones in that build), a return
// address and the saved registers (64 bytes on x86-64), under 200 bytes in
// every build; they stay resident.
constexpr std::uintptr_t kSwitchFramesBytes = 256;

// Below each stack lies a guard region: a frame up to this size that runs
// past the stack's end faults inside it, so an overflow is told from any
// other fault by the fault's address alone. It costs address space, not
// memory.
constexpr std::size_t kGuardBytes = 64 * 1024;

// Idle stack pages (below where a fiber parked, or all of a finished
// fiber's stack kept for the next one) are given back once idle this long,
// by one pass over all of them. A madvise costs a TLB shootdown on every
// other core and the pages fault in again when used: done on every park it
// cost more CPU than the run itself, while most parks are short.
constexpr auto kGiveBackAfter = std::chrono::milliseconds(1000);

// Finished fibers' stacks kept for new ones (their pages given back once
// idle, so they cost address space, not memory); past this they are unmapped.
constexpr std::size_t kMaxPooledStacks = 4096;

std::uintptr_t PageBytes() {
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

struct Fiber {
  // The fiber while it is off its worker, and the worker running it now
  // (where it goes back to when it parks or ends).
  Context context;
  Context worker;
  std::uintptr_t park_frame = 0;         // the frame it parked in, on its stack
  char* mapping = nullptr;               // guard region, then the stack
  std::size_t mapping_bytes = 0;
  std::function<void()> body;
  std::function<void(Wake)>* arm = nullptr;  // set while parking
  bool finished = false;
  FiberPool::State* pool = nullptr;
  // While parked with idle stack pages (guarded by the pool's mu): its place
  // in the pool's list of them, oldest first, and when it parked.
  Fiber* idle_prev = nullptr;
  Fiber* idle_next = nullptr;
  bool idle_listed = false;
  SteadyClock::time_point parked_at{};
  std::uintptr_t idle_end = 0;  // the idle pages end here (page-aligned)
  // Its idle pages are being given back: a wake meanwhile is kept until done.
  bool giving_back = false;
  bool woken_while_giving_back = false;
#if DIAGD_TSAN_FIBERS
  void* tsan_fiber = nullptr;
  void* tsan_worker = nullptr;
#endif
#if DIAGD_ASAN_FIBERS
  // AddressSanitizer must be told each switch of stacks, or it takes the
  // other stack's frames for overflows: the worker's stack to go back to
  // (learnt on each switch in) and the fiber's own fake stack.
  const void* asan_worker_bottom = nullptr;
  std::size_t asan_worker_size = 0;
  void* asan_fake_stack = nullptr;
#endif
};

namespace {

// Read through a function the compiler cannot inline: a fiber may resume
// on another thread, so no caller may keep this thread_local's address.
thread_local Fiber* t_current = nullptr;
[[gnu::noinline]] Fiber* CurrentFiber() { return t_current; }
[[gnu::noinline]] void SetCurrentFiber(Fiber* fiber) { t_current = fiber; }

// The page-aligned end of a parked fiber's idle stack (everything below
// where it parked, which a waiting run need not keep resident); 0 when
// there is none.
std::uintptr_t IdleStackEnd(const Fiber& fiber) {
  auto low = reinterpret_cast<std::uintptr_t>(fiber.mapping) + kGuardBytes;
  std::uintptr_t end = (fiber.park_frame - kSwitchFramesBytes) & ~(PageBytes() - 1);
  return end > low ? end : 0;
}

void GiveBack(char* mapping, std::uintptr_t end) {
  auto low = reinterpret_cast<std::uintptr_t>(mapping) + kGuardBytes;
  if (end > low) madvise(reinterpret_cast<void*>(low), end - low, MADV_DONTNEED);
}

// On the fiber, just after a switch onto it (first entry or resume).
void SwitchedInToFiber([[maybe_unused]] Fiber& fiber) {
#if DIAGD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fiber.asan_fake_stack, &fiber.asan_worker_bottom,
                                  &fiber.asan_worker_size);
#endif
}

// The sanitizers told, the fiber leaves its worker: parked until a worker
// resumes it, or, once finished, for good.
void AnnounceSwitchToWorker([[maybe_unused]] Fiber& fiber) {
#if DIAGD_TSAN_FIBERS
  __tsan_switch_to_fiber(fiber.tsan_worker, 0);
#endif
#if DIAGD_ASAN_FIBERS
  // A finished fiber's fake stack is released (nullptr): it never resumes.
  __sanitizer_start_switch_fiber(fiber.finished ? nullptr : &fiber.asan_fake_stack,
                                 fiber.asan_worker_bottom, fiber.asan_worker_size);
#endif
}

// Parks: off to the worker, back when whichever worker resumes it (that
// worker comes with the switch back). Not inlined, so that its frame is the
// fiber's last one above the switch.
[[gnu::noinline]] void SwitchToWorker(Fiber& fiber) {
  fiber.park_frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  AnnounceSwitchToWorker(fiber);
  fiber.worker = std::move(fiber.worker).resume();
  SwitchedInToFiber(fiber);
}

// The fiber's whole life; the worker it returns is resumed once it ends.
Context FiberMain(Fiber& fiber, Context&& worker) {
  fiber.worker = std::move(worker);
  SwitchedInToFiber(fiber);
  // noexcept: an escaping exception terminates here, with its stack intact.
  [](Fiber& f) noexcept {
    f.body();
    f.body = nullptr;  // its captures die on the fiber, like its locals
  }(fiber);
  fiber.finished = true;
  AnnounceSwitchToWorker(fiber);
  return std::move(fiber.worker);
}

// The stack is the pool's (kept for the next fiber), so Boost.Context gets
// it preallocated and has nothing to free when the fiber ends.
struct PoolOwnedStack {
  void deallocate(boost::context::stack_context&) noexcept {}
};

// A stack overflow on a fiber, said out loud. Everything from here to
// OnFault runs in a signal handler: async-signal-safe calls only, no
// allocation, no lock.

constexpr std::size_t kSignalStackBytes = 64 * 1024;

struct sigaction g_previous_segv {};
struct sigaction g_previous_bus {};

// Whether a fault of the running fiber is its stack overflowing: a touch of
// its guard region (a frame larger than the region could jump past it, and
// then faults as any other stray access would).
bool IsStackOverflow(const Fiber& fiber, std::uintptr_t address) {
  auto guard = reinterpret_cast<std::uintptr_t>(fiber.mapping);
  return address >= guard && address < guard + kGuardBytes;
}

char* Append(char* out, const char* text) {
  while (*text != '\0') *out++ = *text++;
  return out;
}

char* AppendDecimal(char* out, std::size_t value) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

void ReportOverflow(const Fiber& fiber) {
  char message[128];
  char* end = Append(message, "diagd: a run overflowed its ");
  end = AppendDecimal(end, (fiber.mapping_bytes - kGuardBytes) / 1024);
  end = Append(end, " KiB fiber stack (guard page hit); aborting\n");
  ssize_t ignored = write(STDERR_FILENO, message, static_cast<std::size_t>(end - message));
  (void)ignored;
}

// The default action again, and the signal once more: it is delivered when
// the handler returns, so the process dies of it (with a core dump) as it
// would have without this handler.
void DieOfDefault(int signal) {
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  raise(signal);
}

void OnFault(int signal, siginfo_t* info, void* context) {
  const Fiber* fiber = CurrentFiber();
  if (fiber != nullptr && info->si_code > 0 &&
      IsStackOverflow(*fiber, reinterpret_cast<std::uintptr_t>(info->si_addr))) {
    ReportOverflow(*fiber);
    DieOfDefault(signal);
    return;
  }
  // Any other fault: what was there before this handler deals with it.
  const struct sigaction& previous = signal == SIGBUS ? g_previous_bus : g_previous_segv;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
  } else if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL &&
             previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else if (previous.sa_handler == SIG_IGN && info->si_code <= 0) {
    // Sent by a process rather than raised by a fault: ignored, as before.
  } else {
    DieOfDefault(signal);
  }
}

void InstallOverflowReport() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &OnFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_segv);
    sigaction(SIGBUS, &action, &g_previous_bus);
  });
}

// The worker's alternate signal stack, for the fault handler to run on when
// the fiber's own stack is what ran out. A thread that has one keeps it.
class SignalStack {
 public:
  SignalStack() {
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;
    void* memory = mmap(nullptr, kSignalStackBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED) return;  // then an overflow dies silently, as before
    stack_t stack{};
    stack.ss_sp = memory;
    stack.ss_size = kSignalStackBytes;
    if (sigaltstack(&stack, nullptr) != 0) {
      munmap(memory, kSignalStackBytes);
      return;
    }
    memory_ = memory;
  }
  ~SignalStack() {
    if (memory_ == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory_, kSignalStackBytes);
  }
  SignalStack(const SignalStack&) = delete;
  SignalStack& operator=(const SignalStack&) = delete;

 private:
  void* memory_ = nullptr;
};

}  // namespace

struct FiberPool::State {
  // A RunBlocking call: `call` and `error` live on the parked fiber's stack.
  struct BlockingCall {
    const std::function<void()>* call;
    std::exception_ptr* error;
    Wake wake;
  };

  // A finished fiber's stack, kept for the next one.
  struct PooledStack {
    char* mapping = nullptr;
    SteadyClock::time_point idle_since{};
    bool dirty = true;  // pages not given back since it was last used
    bool giving_back = false;
  };

  std::size_t stack_bytes = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Fiber*> ready;
  std::multimap<SteadyClock::time_point, Wake> timers;
  int live = 0;
  bool stopping = false;
  std::vector<std::thread> workers;

  // Idle stack pages, given back in one pass once they are old enough
  // (kGiveBackAfter): parked fibers oldest first, and the pooled stacks
  // (the newest at the back, taken first).
  Fiber* idle_head = nullptr;
  Fiber* idle_tail = nullptr;
  std::deque<PooledStack> pooled_stacks;
  std::size_t dirty_pooled_stacks = 0;
  SteadyClock::time_point next_give_back{};
  // FiberPool::OnIdle: due at idle_since + idle_after while idle_pending
  // (set when the last live fiber ends, cleared by the call or a new fiber).
  std::function<void()> went_idle;
  SteadyClock::duration idle_after{};
  SteadyClock::time_point idle_since{};
  bool idle_pending = false;

  int max_blocking_threads = 0;
  std::condition_variable blocking_cv;
  std::deque<BlockingCall> blocking_calls;
  std::vector<std::thread> blocking_threads;
  int idle_blocking_threads = 0;
  bool blocking_stopping = false;

  // Notifies under the lock: once it is released, the fiber may run to its
  // end and the pool be destroyed while the waking thread is still here.
  void MakeReady(Fiber* fiber) {
    std::lock_guard lock(mu);
    if (fiber->idle_listed) UnlinkIdle(fiber);
    if (fiber->giving_back) {
      fiber->woken_while_giving_back = true;  // made ready once its pages are back
      return;
    }
    ready.push_back(fiber);
    cv.notify_one();
  }

  // REQUIRES: mu held.
  void LinkIdle(Fiber* fiber) {
    fiber->idle_prev = idle_tail;
    fiber->idle_next = nullptr;
    (idle_tail != nullptr ? idle_tail->idle_next : idle_head) = fiber;
    idle_tail = fiber;
    fiber->idle_listed = true;
  }

  // REQUIRES: mu held.
  void UnlinkIdle(Fiber* fiber) {
    (fiber->idle_prev != nullptr ? fiber->idle_prev->idle_next : idle_head) = fiber->idle_next;
    (fiber->idle_next != nullptr ? fiber->idle_next->idle_prev : idle_tail) = fiber->idle_prev;
    fiber->idle_prev = fiber->idle_next = nullptr;
    fiber->idle_listed = false;
  }

  // Just off its worker, before its wake exists: a parked fiber's idle
  // pages wait for the next give-back pass.
  void NoteParked(Fiber* fiber) {
    std::uintptr_t end = IdleStackEnd(*fiber);
    if (end == 0) return;
    std::lock_guard lock(mu);
    fiber->idle_end = end;
    fiber->parked_at = SteadyClock::now();
    LinkIdle(fiber);
  }

  bool HasIdlePages() const {
    return idle_head != nullptr || dirty_pooled_stacks > 0;
  }

  // One pass over the idle stack pages older than kGiveBackAfter, from the
  // worker that holds `lock` (released around the system calls). A fiber
  // woken meanwhile runs once its pages are given back; a pooled stack
  // being given back is not handed out.
  void GiveBackIdle(std::unique_lock<std::mutex>& lock, SteadyClock::time_point now) {
    next_give_back = now + kGiveBackAfter / 2;
    const auto cutoff = now - kGiveBackAfter;
    std::vector<Fiber*> fibers;
    while (idle_head != nullptr && idle_head->parked_at <= cutoff) {
      Fiber* fiber = idle_head;
      UnlinkIdle(fiber);
      fiber->giving_back = true;
      fibers.push_back(fiber);
    }
    // Oldest first: entries before the last one taken keep their places,
    // as stacks are only taken and returned at the back.
    std::vector<std::size_t> stacks;
    for (std::size_t i = 0; i < pooled_stacks.size() && pooled_stacks[i].idle_since <= cutoff;
         ++i) {
      if (!pooled_stacks[i].dirty || pooled_stacks[i].giving_back) continue;
      pooled_stacks[i].giving_back = true;
      stacks.push_back(i);
    }
    if (fibers.empty() && stacks.empty()) return;
    std::vector<char*> stack_mappings;
    for (std::size_t i : stacks) stack_mappings.push_back(pooled_stacks[i].mapping);
    lock.unlock();
    for (Fiber* fiber : fibers) GiveBack(fiber->mapping, fiber->idle_end);
    for (char* mapping : stack_mappings) {
      GiveBack(mapping, reinterpret_cast<std::uintptr_t>(mapping) + kGuardBytes + stack_bytes);
    }
    lock.lock();
    for (Fiber* fiber : fibers) {
      fiber->giving_back = false;
      if (fiber->woken_while_giving_back) {
        fiber->woken_while_giving_back = false;
        ready.push_back(fiber);
        cv.notify_one();
      }
    }
    for (std::size_t i : stacks) {
      pooled_stacks[i].giving_back = false;
      pooled_stacks[i].dirty = false;
      --dirty_pooled_stacks;
    }
  }

  // A stack for a new fiber: the most recently pooled one, else a fresh
  // mapping with its guard page; nullptr when none can be had.
  char* TakeStack() {
    {
      std::lock_guard lock(mu);
      if (!pooled_stacks.empty() && !pooled_stacks.back().giving_back) {
        char* mapping = pooled_stacks.back().mapping;
        if (pooled_stacks.back().dirty) --dirty_pooled_stacks;
        pooled_stacks.pop_back();
        return mapping;
      }
    }
    void* mapping = mmap(nullptr, stack_bytes + kGuardBytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED) return nullptr;
    if (mprotect(mapping, kGuardBytes, PROT_NONE) != 0) {  // the guard region: overflow faults
      munmap(mapping, stack_bytes + kGuardBytes);
      return nullptr;
    }
    return static_cast<char*>(mapping);
  }

  // REQUIRES: mu held. The stack's pages stay until the next give-back pass.
  void PoolStack(char* mapping, SteadyClock::time_point now) {
    if (pooled_stacks.size() >= kMaxPooledStacks) {
      munmap(mapping, stack_bytes + kGuardBytes);
      return;
    }
    pooled_stacks.push_back(PooledStack{mapping, now});
    ++dirty_pooled_stacks;
  }

  void AddTimer(SteadyClock::time_point deadline, Wake wake) {
    {
      std::lock_guard lock(mu);
      timers.emplace(deadline, std::move(wake));
    }
    cv.notify_one();  // a worker waiting with no deadline must take this one
  }

  // The next fiber to run, firing due timers on the way; nullptr once the
  // pool stops and no fiber is left.
  Fiber* Next() {
    std::vector<Wake> due;
    std::unique_lock lock(mu);
    while (true) {
      auto now = SteadyClock::now();
      while (!timers.empty() && timers.begin()->first <= now) {
        due.push_back(std::move(timers.begin()->second));
        timers.erase(timers.begin());
      }
      if (!due.empty()) {
        lock.unlock();
        for (auto& wake : due) wake();
        due.clear();
        lock.lock();
        continue;
      }
      if (now >= next_give_back && HasIdlePages()) {
        GiveBackIdle(lock, now);
        continue;
      }
      if (idle_pending && !stopping && now >= idle_since + idle_after) {
        idle_pending = false;
        lock.unlock();
        went_idle();
        lock.lock();
        continue;
      }
      if (!ready.empty()) {
        Fiber* fiber = ready.front();
        ready.pop_front();
        return fiber;
      }
      if (stopping && live == 0) return nullptr;
      // A copy: wait_until reads its deadline again after waking, and
      // another worker may have fired and erased that timer meanwhile
      // (AddressSanitizer caught the read of the freed node).
      std::optional<SteadyClock::time_point> deadline;
      if (!timers.empty()) deadline = timers.begin()->first;
      if (HasIdlePages() && (!deadline || next_give_back < *deadline)) {
        deadline = next_give_back;
      }
      if (idle_pending && (!deadline || idle_since + idle_after < *deadline)) {
        deadline = idle_since + idle_after;
      }
      if (deadline) {
        cv.wait_until(lock, *deadline);
      } else {
        cv.wait(lock);
      }
    }
  }

  void SubmitBlocking(BlockingCall call) {
    std::unique_lock lock(mu);
    blocking_calls.push_back(std::move(call));
    if (idle_blocking_threads > 0 ||
        static_cast<int>(blocking_threads.size()) >= max_blocking_threads) {
      blocking_cv.notify_one();
      return;
    }
    try {
      blocking_threads.emplace_back([this] { BlockingWork(); });
    } catch (const std::system_error&) {
      // No thread to be had: a running one takes the call later; with none
      // at all, it runs here on the worker rather than never.
      if (!blocking_threads.empty()) return;
      BlockingCall mine = std::move(blocking_calls.back());
      blocking_calls.pop_back();
      lock.unlock();
      Execute(mine);
    }
  }

  static void Execute(BlockingCall& blocking) {
    try {
      (*blocking.call)();
    } catch (...) {
      *blocking.error = std::current_exception();
    }
    blocking.wake();  // the fiber's `call` and `error` are not touched after this
  }

  void BlockingWork() {
    std::unique_lock lock(mu);
    while (true) {
      while (blocking_calls.empty() && !blocking_stopping) {
        ++idle_blocking_threads;
        blocking_cv.wait(lock);
        --idle_blocking_threads;
      }
      if (blocking_calls.empty()) return;  // stopping, and nothing left
      BlockingCall next = std::move(blocking_calls.front());
      blocking_calls.pop_front();
      lock.unlock();
      Execute(next);
      lock.lock();
    }
  }

  void Destroy(Fiber* fiber) {
#if DIAGD_TSAN_FIBERS
    __tsan_destroy_fiber(fiber->tsan_fiber);
#endif
    char* mapping = fiber->mapping;
    delete fiber;
    bool last = false;
    {
      std::lock_guard lock(mu);
      auto now = SteadyClock::now();
      PoolStack(mapping, now);
      last = --live == 0;
      if (last && went_idle) {
        idle_since = now;
        idle_pending = true;
      }
    }
    if (last) cv.notify_all();
  }

  void Work() {
    SignalStack signal_stack;
    while (Fiber* fiber = Next()) {
      SetCurrentFiber(fiber);
#if DIAGD_TSAN_FIBERS
      fiber->tsan_worker = __tsan_get_current_fiber();
      __tsan_switch_to_fiber(fiber->tsan_fiber, 0);
#endif
#if DIAGD_ASAN_FIBERS
      void* worker_fake_stack = nullptr;
      __sanitizer_start_switch_fiber(&worker_fake_stack, fiber->mapping + kGuardBytes,
                                     fiber->mapping_bytes - kGuardBytes);
#endif
      fiber->context = std::move(fiber->context).resume();  // empty once it ended
#if DIAGD_ASAN_FIBERS
      __sanitizer_finish_switch_fiber(worker_fake_stack, nullptr, nullptr);
#endif
      SetCurrentFiber(nullptr);
      if (fiber->finished) {
        Destroy(fiber);
        continue;
      }
      NoteParked(fiber);
      // Taken off the fiber's stack before the wake can exist: once armed,
      // the fiber may run (and return from Park) on another worker.
      std::function<void(Wake)> arm = std::move(*fiber->arm);
      fiber->arm = nullptr;
      arm([this, fiber] { MakeReady(fiber); });
    }
  }
};

FiberPool::FiberPool(int workers, std::size_t stack_bytes, int blocking_threads)
    : state_(std::make_unique<State>()) {
  InstallOverflowReport();
  state_->stack_bytes = (stack_bytes + PageBytes() - 1) & ~(PageBytes() - 1);
  state_->max_blocking_threads = std::max(0, blocking_threads);
  for (int i = 0; i < std::max(1, workers); ++i) {
    state_->workers.emplace_back([state = state_.get()] { state->Work(); });
  }
}

FiberPool::~FiberPool() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
  }
  state_->cv.notify_all();
  for (auto& worker : state_->workers) worker.join();
  // No fiber is left to submit a blocking call.
  {
    std::lock_guard lock(state_->mu);
    state_->blocking_stopping = true;
  }
  state_->blocking_cv.notify_all();
  for (auto& thread : state_->blocking_threads) thread.join();
  for (const auto& stack : state_->pooled_stacks) {
    munmap(stack.mapping, state_->stack_bytes + kGuardBytes);
  }
}

bool FiberPool::Spawn(std::function<void()> body) {
  const std::size_t mapping_bytes = state_->stack_bytes + kGuardBytes;
  char* mapping = state_->TakeStack();
  if (mapping == nullptr) return false;
  auto* fiber = new (std::nothrow) Fiber;
  if (fiber == nullptr) {
    std::lock_guard lock(state_->mu);
    state_->PoolStack(mapping, SteadyClock::now());
    return false;
  }
#if DIAGD_ASAN_FIBERS
  // A pooled stack still carries the poisoned frames its last fiber never
  // returned from.
  __asan_unpoison_memory_region(mapping + kGuardBytes, state_->stack_bytes);
#endif
  fiber->mapping = mapping;
  fiber->mapping_bytes = mapping_bytes;
  fiber->body = std::move(body);
  fiber->pool = state_.get();
#if DIAGD_TSAN_FIBERS
  // Making the context enters its stack and comes back at once: ThreadSanitizer
  // must see that entry on the fiber, not on this thread.
  fiber->tsan_fiber = __tsan_create_fiber(0);
  void* spawner = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(fiber->tsan_fiber, 0);
#endif
  boost::context::stack_context stack;
  stack.sp = mapping + mapping_bytes;
  stack.size = state_->stack_bytes;
  fiber->context = Context(std::allocator_arg, boost::context::preallocated(stack.sp, stack.size, stack),
                           PoolOwnedStack{},
                           [fiber](Context&& worker) { return FiberMain(*fiber, std::move(worker)); });
#if DIAGD_TSAN_FIBERS
  __tsan_switch_to_fiber(spawner, 0);
#endif
  {
    std::lock_guard lock(state_->mu);
    ++state_->live;
    state_->idle_pending = false;
    state_->ready.push_back(fiber);
  }
  state_->cv.notify_one();
  return true;
}

void FiberPool::OnIdle(std::chrono::nanoseconds after, std::function<void()> went_idle) {
  std::lock_guard lock(state_->mu);
  state_->idle_after = std::chrono::duration_cast<SteadyClock::duration>(after);
  state_->went_idle = std::move(went_idle);
}

int FiberPool::live_fibers() const {
  std::lock_guard lock(state_->mu);
  return state_->live;
}

bool OnFiber() { return CurrentFiber() != nullptr; }

void Park(std::function<void(Wake)> arm) {
  Fiber* fiber = CurrentFiber();
  fiber->arm = &arm;
  SwitchToWorker(*fiber);
}

void RunBlocking(const std::function<void()>& call) {
  Fiber* fiber = CurrentFiber();
  if (fiber == nullptr || fiber->pool->max_blocking_threads == 0) {
    call();
    return;
  }
  std::exception_ptr error;
  Park([&call, &error, pool = fiber->pool](Wake wake) {
    pool->SubmitBlocking({&call, &error, std::move(wake)});
  });
  if (error) std::rethrow_exception(error);
}

void SleepFor(std::chrono::nanoseconds duration) {
  Fiber* fiber = CurrentFiber();
  if (fiber == nullptr) {
    std::this_thread::sleep_for(duration);
    return;
  }
  auto deadline = SteadyClock::now() + duration;
  Park([pool = fiber->pool, deadline](Wake wake) { pool->AddTimer(deadline, std::move(wake)); });
}

void Condition::Wait(std::unique_lock<std::mutex>& lock) {
  if (!OnFiber()) {
    blocked_.wait(lock);
    return;
  }
  // The fiber lets go of the lock before it parks (no lock across a Park);
  // a NotifyAll in between shows as a new generation, and wakes at once.
  std::mutex* mu = lock.mutex();
  const std::uint64_t seen = generation_;
  lock.unlock();
  Park([this, mu, seen](Wake wake) {
    std::lock_guard relock(*mu);
    if (generation_ != seen) {
      wake();
    } else {
      parked_.push_back(std::move(wake));
    }
  });
  lock.lock();
}

void Condition::NotifyAll() {
  ++generation_;
  for (auto& wake : parked_) wake();
  parked_.clear();
  blocked_.notify_all();
}

}  // namespace diagd::runtime
