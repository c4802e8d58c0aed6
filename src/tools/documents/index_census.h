// How much a local documents index holds, read without changing it: for
// `diagd check` (docs/check.md), which reports the sections indexed after
// bringing the index up to date (LocalDocumentsAdapter::Refresh).
//
// Thread safety: a pure function (it opens its own read-only database).
#pragma once

#include <cstddef>
#include <filesystem>

#include "core/result.h"

namespace diagd::tools::documents {

// The sections in the index at `index_directory` (one Xapian document per
// heading section, local_index.h). UNAVAILABLE when there is no index there
// yet or it cannot be read.
Result<std::size_t> CountIndexedSections(const std::filesystem::path& index_directory);

}  // namespace diagd::tools::documents
