// Where a `diagd eval` process keeps its incidents' run stores and
// documents indexes: one folder, $TMPDIR/diagd-eval-<pid>-XXXXXX, removed
// when the eval ends. A process that could not remove it (kill -9, a
// power cut) leaves it behind; the next eval removes every such folder
// whose process is gone.
#pragma once

#include <filesystem>

#include "core/result.h"

namespace diagd::eval {

class ScratchRoot {
 public:
  // Removes abandoned roots of this user first, then makes a fresh one.
  static Result<ScratchRoot> Create();
  ~ScratchRoot();
  ScratchRoot(ScratchRoot&& other) noexcept;
  ScratchRoot& operator=(ScratchRoot&&) = delete;
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ScratchRoot(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

// A fresh folder inside `root` for one incident.
Result<std::filesystem::path> MakeScratchFolder(const std::filesystem::path& root);

}  // namespace diagd::eval
