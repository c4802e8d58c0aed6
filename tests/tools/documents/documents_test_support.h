// Helpers for the documents backend tests: a throw-away folder, file
// writing, and a one-call search.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/clock.h"
#include "tools/documents/local_documents_adapter.h"

namespace diagd::tools::documents::testing {

// A fresh folder under the system temp folder, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "diagd-docs-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every file under `root` with its size and modification time: equal
// snapshots mean nothing was written.
inline std::map<std::string, std::string> Snapshot(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    auto key = entry.path().lexically_relative(root).generic_string();
    std::string stamp = entry.is_regular_file()
                            ? std::to_string(entry.file_size()) + "@" +
                                  std::to_string(entry.last_write_time().time_since_epoch().count())
                            : "dir";
    files[key] = stamp;
  }
  return files;
}

inline MonoTime InTenSeconds(const Clock& clock) {
  return clock.Monotonic() + std::chrono::seconds(10);
}

inline DocumentsResult Search(ToolAdapter& adapter, const std::string& query,
                              const Clock& clock = SystemClock::Instance()) {
  auto output = adapter.Execute(DocumentsRequest{query}, InTenSeconds(clock));
  EXPECT_TRUE(output.has_value()) << "search failed: " << query;
  if (!output.has_value()) return {};
  return std::get<DocumentsResult>(output->result);
}

}  // namespace diagd::tools::documents::testing
