// The `local` backend of search_documents (docs/configuration.md): a Markdown
// tree searched per heading section with BM25 over title, headings and body,
// Chinese and English alike. How it works: docs/documents-search.md.
//
// The index lives under `cache_dir`, in a folder named from a hash of the
// tree's absolute path; nothing is ever written into the tree. It is built on
// the first search and brought up to date when files change (new, changed
// and removed files only), checked at most once per `refresh_interval` so
// that searches stay fast.
//
// Thread safety: `Execute` is safe for concurrent use. One search at a time
// refreshes (the others answer from the index as it stands, except before
// the first build, which they wait for); searches read concurrently (see
// local_index.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/clock.h"
#include "core/result.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::documents {

class LocalIndex;

struct LocalDocumentsOptions {
  std::filesystem::path root;       // the Markdown tree
  std::filesystem::path cache_dir;  // where indexes live; must not be inside `root`
  std::size_t max_evidence = 5;
  std::size_t max_excerpt_chars = 600;
  std::chrono::milliseconds refresh_interval{2000};  // 0: check the tree on every search
};

// Every Open error about the cache folder (rather than the documents
// folder) starts with this, so the caller can name the right setting.
inline constexpr std::string_view kCacheFolderError = "the documents cache folder";

class LocalDocumentsAdapter final : public ToolAdapter {
 public:
  // INVALID_ARGUMENT when `root` is missing, not a folder or unreadable, or
  // when `cache_dir` lies inside it; UNAVAILABLE when the cache folder cannot
  // be created. Does not build the index (the first search or `Refresh` does).
  static Result<std::unique_ptr<LocalDocumentsAdapter>> Open(LocalDocumentsOptions options,
                                                             const Clock& clock);
  ~LocalDocumentsAdapter() override;

  // Brings the index up to date now, whatever the interval: for a warm-up at
  // start and for benchmarks. DEADLINE_EXCEEDED leaves a partial index that
  // the next refresh completes.
  Status Refresh(MonoTime deadline);

  // The index's folder under `cache_dir`.
  const std::filesystem::path& index_directory() const;

 private:
  // ToolAdapter. Evidence: the best `max_evidence` sections holding at least
  // one query term, each with an excerpt of at most `max_excerpt_chars` code
  // points around the first term found (an exact substring of the file);
  // `truncated` when more sections matched. TOOL_TIMEOUT once `deadline` has
  // passed; TOOL_UNAVAILABLE when the index cannot be built or read. A
  // cancel gives up (TOOL_UNAVAILABLE) while waiting for the first build,
  // between files of a refresh (what was indexed is kept) and before the
  // search.
  Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request, MonoTime deadline,
                                                  const std::stop_token& cancel) override;

  LocalDocumentsAdapter(LocalDocumentsOptions options, const Clock& clock,
                        std::unique_ptr<LocalIndex> index);
  Result<AdapterOutput, AdapterFailure> Answer(const DocumentsRequest& request, MonoTime deadline,
                                               const std::stop_token& cancel);
  // Refreshes when the interval has passed. Fails only when there is no
  // complete index to answer from, or on a cancel.
  Result<void, AdapterFailure> RefreshIfDue(MonoTime deadline, const std::stop_token& cancel);
  Status RefreshLocked(MonoTime deadline, const std::stop_token& cancel = {});

  const LocalDocumentsOptions options_;
  const Clock& clock_;
  std::unique_ptr<LocalIndex> index_;
  std::mutex refresh_mu_;                    // one refresh at a time
  std::atomic<bool> built_{false};           // a refresh has completed once
  std::atomic<std::int64_t> next_check_{0};  // monotonic ns of the next due check
};

}  // namespace diagd::tools::documents
