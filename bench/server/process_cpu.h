// CPU time of processes the load driver measures, read from /proc: one
// process (a diagd instance, redis-server, the driver itself) or a process
// and its children (the PostgreSQL postmaster and its backends).
//
// Thread safety: `ProcessTreeCpu` is used from one thread at a time (the
// driver's sampler, then its main thread once the sampler has stopped).
#pragma once

#include <sys/types.h>

#include <map>
#include <vector>

namespace diagd::bench {

// CPU seconds used, user and system (the kernel on the process's behalf).
struct CpuTimes {
  double user = 0;
  double system = 0;
  double total() const { return user + system; }
};

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b);
CpuTimes operator+(const CpuTimes& a, const CpuTimes& b);

// The process's own time (fields 14 and 15 of /proc/PID/stat: all its
// threads, not its waited-for children); zero once it is gone.
CpuTimes CpuSeconds(pid_t pid);

// The process's children now (/proc/PID/task/PID/children: the children of
// its main thread, which for a single-threaded postmaster is all of them).
std::vector<pid_t> Children(pid_t pid);

// CPU of a root process and every child seen while sampling. A child's time
// is lost when it exits (the kernel adds it to the parent's cutime only once
// the parent waits for it, and not to the fields read here), so `Sample`
// keeps the last value read per pid: call it often during the load, and the
// time lost is at most what an exiting child used since the last sample.
class ProcessTreeCpu {
 public:
  explicit ProcessTreeCpu(pid_t root) : root_(root) {}

  // Reads the root and its current children.
  void Sample();
  // Forgets what was sampled so far as the starting point: `Used()` counts
  // from here. A child first seen later counts from zero (it started during
  // the load, and its start-up is part of the load's cost).
  void MarkStart();
  // CPU used by the tree since `MarkStart`, from the last `Sample`.
  CpuTimes Used() const;
  // Distinct pids seen since `MarkStart`, the root included, and how many of
  // them were gone at the last sample.
  int pids_seen() const { return static_cast<int>(last_.size()); }
  int pids_gone() const { return gone_; }

 private:
  pid_t root_;
  std::map<pid_t, CpuTimes> start_;
  std::map<pid_t, CpuTimes> last_;
  int gone_ = 0;
};

}  // namespace diagd::bench
