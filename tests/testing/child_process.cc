#include "testing/child_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>

namespace diagd::testing {

pid_t SpawnChild(const std::vector<std::string>& args, const ChildOptions& options) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::string log = options.log.empty() ? "/dev/null" : options.log.string();
  std::string dir = options.dir.string();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: async-signal-safe calls only.
  if (options.own_group) setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, options.death_signal);
  if (getppid() != parent) _exit(126);  // the parent died before prctl
  if (!dir.empty() && chdir(dir.c_str()) != 0) _exit(126);
  int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int in = open("/dev/null", O_RDONLY);
  if (out < 0 || in < 0) _exit(126);
  dup2(in, 0);
  dup2(out, 1);
  dup2(out, 2);
  close_range(3, ~0U, 0);  // no socket of the test lives on in the server
  execv(argv[0], argv.data());
  _exit(127);
}

void StopChild(pid_t pid, int signal, std::chrono::milliseconds patience, bool whole_group) {
  if (pid <= 0) return;
  kill(pid, signal);
  auto deadline = std::chrono::steady_clock::now() + patience;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(whole_group ? -pid : pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string ReadWholeFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string FileTail(const std::filesystem::path& file, std::size_t max_bytes) {
  std::string content = ReadWholeFile(file);
  return content.size() > max_bytes ? content.substr(content.size() - max_bytes) : content;
}

}  // namespace diagd::testing
