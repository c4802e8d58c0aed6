#include "eval/scratch.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace diagd::eval {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "diagd-eval-";

// True when `name` is a root of a process of this user that is gone.
bool IsAbandoned(const fs::path& folder) {
  std::string name = folder.filename().string();
  if (!name.starts_with(kPrefix)) return false;
  std::string_view rest = std::string_view(name).substr(kPrefix.size());
  pid_t pid = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (error != std::errc() || end == rest.data() || *end != '-' || pid <= 0) return false;
  struct stat info {};
  if (::lstat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid()) {
    return false;
  }
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

void RemoveAbandoned(const fs::path& temp) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(temp, error)) {
    if (IsAbandoned(entry.path())) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

Result<fs::path> MakeTemporaryFolder(const fs::path& parent, const std::string& prefix) {
  std::string pattern = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error::Unavailable("cannot create a temporary folder in " + parent.string() + ": " +
                              std::generic_category().message(errno));
  }
  return fs::path(pattern);
}

}  // namespace

Result<ScratchRoot> ScratchRoot::Create() {
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) return Error::Unavailable("no temporary folder: " + error.message());
  RemoveAbandoned(temp);
  auto folder =
      MakeTemporaryFolder(temp, std::string(kPrefix) + std::to_string(::getpid()) + "-");
  if (!folder) return folder.error();
  return ScratchRoot(std::move(*folder));
}

ScratchRoot::ScratchRoot(ScratchRoot&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

ScratchRoot::~ScratchRoot() {
  std::error_code ignored;
  if (!path_.empty()) fs::remove_all(path_, ignored);
}

Result<fs::path> MakeScratchFolder(const fs::path& root) {
  return MakeTemporaryFolder(root, "incident-");
}

}  // namespace diagd::eval
