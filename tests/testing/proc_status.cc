#include "testing/proc_status.h"

#include <cstdlib>
#include <fstream>

namespace diagd::testing {

long ProcStatus(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  }
  return -1;
}

}  // namespace diagd::testing
