#include "tools/documents/markdown_tree.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <system_error>

namespace diagd::tools::documents {
namespace fs = std::filesystem;
namespace {

bool IsMarkdownName(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(c | 0x20); });
  return extension == ".md" || extension == ".markdown";
}

std::optional<FileStamp> StampOf(const fs::path& path) {
  std::error_code error;
  auto size = fs::file_size(path, error);
  if (error) return std::nullopt;
  auto mtime = fs::last_write_time(path, error);
  if (error) return std::nullopt;
  return FileStamp{
      size,
      static_cast<std::int64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count())};
}

}  // namespace

bool IsWithin(const fs::path& path, const fs::path& root) {
  auto [root_end, path_it] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

Result<TreeManifest> ScanMarkdownTree(const fs::path& root) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return Error::NotFound("documents root is not a folder: " + root.string());
  }
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  if (error) {
    return Error::Unavailable("documents root cannot be listed: " + root.string() + ": " +
                              error.message());
  }
  TreeManifest manifest;
  std::error_code walk_error;
  for (; it != fs::recursive_directory_iterator(); it.increment(walk_error)) {
    // A folder that vanished or became unreadable mid-walk fails the scan
    // (below): a partial list would read as deleted files.
    if (walk_error) break;
    const fs::directory_entry& entry = *it;
    const fs::path& path = entry.path();
    std::error_code entry_error;
    if (path.filename().string().starts_with('.')) {
      if (entry.is_directory(entry_error)) it.disable_recursion_pending();
      continue;
    }
    fs::path target = path;
    if (entry.is_symlink(entry_error)) {
      target = fs::canonical(path, entry_error);
      if (entry_error || !IsWithin(target, root) || !fs::is_regular_file(target, entry_error)) {
        continue;
      }
    } else if (!entry.is_regular_file(entry_error)) {
      continue;
    }
    if (!IsMarkdownName(path)) continue;
    if (auto stamp = StampOf(target)) {
      manifest.emplace(path.lexically_relative(root).generic_string(), *stamp);
    }
  }
  if (walk_error) {
    return Error::Unavailable("documents tree cannot be listed: " + walk_error.message());
  }
  return manifest;
}

}  // namespace diagd::tools::documents
