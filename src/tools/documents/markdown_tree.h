// The Markdown files of a documents tree and their stamps (size and
// modification time), which is all the local index compares to know what
// changed.
//
// Thread safety: pure functions (they read the file system).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "core/result.h"

namespace diagd::tools::documents {

struct FileStamp {
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;  // the file system's clock; only compared for equality
  bool operator==(const FileStamp&) const = default;
};

// Source (path relative to the root, `/`-separated) to stamp, sorted.
using TreeManifest = std::map<std::string, FileStamp>;

// Every `*.md` and `*.markdown` file (any case) under `root`, recursively.
// Hidden files and folders (a name starting with '.', such as `.git`) are
// skipped. Symbolic links to folders are not followed (no cycles, no escape);
// a link to a file is taken only when the file lies inside `root`, and is
// listed under the link's own path. Entries that cannot be read are skipped.
// `root` must be canonical. NOT_FOUND or UNAVAILABLE when `root` cannot be
// listed.
Result<TreeManifest> ScanMarkdownTree(const std::filesystem::path& root);

// True when `path` (canonical) is `root` (canonical) or lies under it.
bool IsWithin(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace diagd::tools::documents
