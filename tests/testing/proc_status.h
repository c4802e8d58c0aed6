// What /proc says of a process, for tests and benchmarks that measure the
// real server binary: its thread count and resident memory.
#pragma once

#include <sys/types.h>

#include <string>

namespace diagd::testing {

// The number on the line of /proc/PID/status that starts with `key`
// ("Threads:", "VmRSS:" in KiB), or -1 when there is none.
long ProcStatus(pid_t pid, const std::string& key);

}  // namespace diagd::testing
