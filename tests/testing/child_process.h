// The child processes of the real servers tests start on loopback (MariaDB,
// PostgreSQL, Redis, nginx): how each is started, stopped and read about, in
// one place, so that none outlives the test program or keeps its sockets.
//
// Thread safety: the functions are safe from any thread; a pid has one owner.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace diagd::testing {

struct ChildOptions {
  std::filesystem::path log;  // stdout and stderr; /dev/null when empty
  std::filesystem::path dir;  // the working directory; this one when empty
  // Sent to the child when the test program dies (PR_SET_PDEATHSIG), so a
  // killed test run leaves no server behind.
  int death_signal = SIGKILL;
  // A process group of its own, so StopChild can end a master and its workers.
  bool own_group = false;
};

// fork + exec of `args` (args[0] a path), stdin /dev/null and no descriptor
// of the test open in it; the child's pid, or -1 when fork failed. A child
// that cannot set itself up exits 126, one whose exec failed 127.
pid_t SpawnChild(const std::vector<std::string>& args, const ChildOptions& options = {});

// Sends `signal`, waits up to `patience` for the child to exit, then kills
// it (its group too when `whole_group`) and reaps it.
void StopChild(pid_t pid, int signal, std::chrono::milliseconds patience, bool whole_group = false);

std::string ReadWholeFile(const std::filesystem::path& file);
// The last `max_bytes` of a server's log, for an error that says why it failed.
std::string FileTail(const std::filesystem::path& file, std::size_t max_bytes = 1500);

}  // namespace diagd::testing
