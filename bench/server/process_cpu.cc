#include "process_cpu.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>

namespace diagd::bench {

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return {a.user - b.user, a.system - b.system};
}

CpuTimes operator+(const CpuTimes& a, const CpuTimes& b) {
  return {a.user + b.user, a.system + b.system};
}

namespace {

// The process's times, or nullopt when it is gone (or its stat unreadable).
std::optional<CpuTimes> ReadCpu(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CpuTimes times;
  // The command name (field 2) is in parentheses and may hold spaces.
  std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos || name_end + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(name_end + 2));
  std::string field;
  const auto ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (int i = 3; fields >> field && i <= 15; ++i) {
    if (i == 14) times.user = std::atof(field.c_str()) / ticks_per_second;
    if (i == 15) times.system = std::atof(field.c_str()) / ticks_per_second;
  }
  return times;
}

}  // namespace

CpuTimes CpuSeconds(pid_t pid) { return ReadCpu(pid).value_or(CpuTimes{}); }

std::vector<pid_t> Children(pid_t pid) {
  std::string id = std::to_string(pid);
  std::ifstream in("/proc/" + id + "/task/" + id + "/children");
  std::vector<pid_t> children;
  for (long child = 0; in >> child;) children.push_back(static_cast<pid_t>(child));
  return children;
}

void ProcessTreeCpu::Sample() {
  std::set<pid_t> alive;
  alive.insert(root_);
  for (pid_t child : Children(root_)) alive.insert(child);
  int gone = 0;
  for (const auto& [pid, times] : last_) {
    if (alive.count(pid) == 0) ++gone;
  }
  for (pid_t pid : alive) {
    // Gone since it was listed: keep what was read before.
    std::optional<CpuTimes> now = ReadCpu(pid);
    if (!now) {
      if (last_.count(pid) != 0) ++gone;
      continue;
    }
    last_[pid] = *now;
  }
  gone_ = gone;
}

void ProcessTreeCpu::MarkStart() {
  Sample();
  start_ = last_;
  gone_ = 0;
}

CpuTimes ProcessTreeCpu::Used() const {
  CpuTimes used;
  for (const auto& [pid, times] : last_) {
    auto start = start_.find(pid);
    used = used + (start == start_.end() ? times : times - start->second);
  }
  return used;
}

}  // namespace diagd::bench
