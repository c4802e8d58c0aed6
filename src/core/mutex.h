// A std::mutex with clang thread-safety annotations, so that a clang build
// with -Wthread-safety checks every GUARDED_BY field. Under GCC the
// annotations compile to nothing.
#pragma once

#include <mutex>

#if defined(__clang__)
#define DIAGD_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define DIAGD_THREAD_ANNOTATION(x)
#endif

#define GUARDED_BY(x) DIAGD_THREAD_ANNOTATION(guarded_by(x))
#define REQUIRES(...) DIAGD_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) DIAGD_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

namespace diagd {

class DIAGD_THREAD_ANNOTATION(capability("mutex")) Mutex {
 public:
  void Lock() DIAGD_THREAD_ANNOTATION(acquire_capability()) { mu_.lock(); }
  void Unlock() DIAGD_THREAD_ANNOTATION(release_capability()) { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class DIAGD_THREAD_ANNOTATION(scoped_lockable) MutexLock {
 public:
  explicit MutexLock(Mutex& mu) DIAGD_THREAD_ANNOTATION(acquire_capability(mu)) : mu_(mu) {
    mu_.Lock();
  }
  ~MutexLock() DIAGD_THREAD_ANNOTATION(release_capability()) { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace diagd
