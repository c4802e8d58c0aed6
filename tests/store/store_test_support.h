// Shared by the run store's tests: a private temporary folder and runs with
// times on whole milliseconds (the store keeps milliseconds).
#pragma once

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "app/run_store.h"
#include "core/clock.h"

namespace diagd::store::testing {

// A fresh folder under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "diagd-store-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    path_ = made != nullptr ? std::filesystem::path(made) : std::filesystem::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string Url(const std::string& name) const { return "sqlite:" + (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// 2026-11-29T10:30:00Z plus `millis`.
inline WallTime At(std::int64_t millis) {
  return *ParseRfc3339("2026-11-29T10:30:00Z") + std::chrono::milliseconds(millis);
}

inline app::RunRecord RunningRun(const std::string& run_id, WallTime created_at,
                                 const std::string& conversation_id = "conv-1") {
  app::RunRecord run;
  run.run_id = run_id;
  run.conversation_id = conversation_id;
  run.route = "DIAGNOSIS";
  run.status = "RUNNING";
  run.internal_status = "RUNNING";
  run.created_at = created_at;
  return run;
}

}  // namespace diagd::store::testing
