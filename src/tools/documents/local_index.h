// The Xapian index of a Markdown tree, one document per heading section,
// kept in a folder of its own (never inside the tree).
//
// Each indexed section holds: its terms (search_terms.h) from the section
// text with weight 1 and from its breadcrumb (title and headings) with
// weight kHeadingWeight, so BM25 ranks a heading match above a body match;
// a unique id term; a per-file term (to drop a file's sections at once);
// and, as document data, the fields the evidence needs (the section text
// included, so an excerpt is cut from exactly what was indexed). The
// manifest (path, size, mtime of every indexed file) lives in the database's
// metadata and is committed in the same transaction as the sections, so the
// two never disagree, even after a crash.
//
// Thread safety: every member is safe for concurrent use. `Refresh` calls
// run one at a time (a mutex); searches run concurrently with each other and
// with a refresh, each on a Xapian::Database taken from a small pool and
// reopened to the latest commit before use (Xapian objects are not
// thread-safe; opening one per search would cost more than the search).
// Several processes may share an index folder: Xapian lets one writer in at a
// time, and a refresh that finds the index locked leaves the update to the
// process holding it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace diagd::tools::documents {

inline constexpr unsigned kHeadingWeight = 3;

struct IndexedSection {
  std::string document_id;
  std::string source;
  std::string title;
  std::string breadcrumb;
  std::string body;                        // the section's exact text
  std::vector<std::string> matched_terms;  // the query terms this section holds
};

struct SearchHits {
  std::vector<IndexedSection> sections;  // best first
  bool more = false;                     // more sections matched than were returned
};

struct RefreshStats {
  std::size_t files_indexed = 0;  // new or changed files (re)indexed
  std::size_t files_removed = 0;
  std::size_t sections_indexed = 0;
  bool locked_elsewhere = false;  // another process holds the index; nothing was done
};

class LocalIndex {
 public:
  // `root` must be a canonical folder; `directory` is the index's own folder,
  // created when missing. The index itself is built by the first `Refresh`.
  static Result<std::unique_ptr<LocalIndex>> Open(std::filesystem::path root,
                                                  std::filesystem::path directory);
  ~LocalIndex();
  LocalIndex(const LocalIndex&) = delete;
  LocalIndex& operator=(const LocalIndex&) = delete;

  // Brings the index in line with the tree: (re)indexes new and changed
  // files, drops removed ones. Cheap when nothing changed (one scan of the
  // tree's stamps). DEADLINE_EXCEEDED when `deadline` passed first, CANCELLED
  // when `cancel` was requested first: what was indexed is committed and the
  // next call goes on from there. UNAVAILABLE when the tree cannot be read or
  // the index cannot be written.
  Result<RefreshStats> Refresh(const Clock& clock, MonoTime deadline,
                               const std::stop_token& cancel = {});

  // The best `limit` sections holding at least one of `terms` (BM25), best
  // first. `time_limit_seconds` > 0 bounds the match itself. UNAVAILABLE
  // when the index cannot be read (for instance never built).
  Result<SearchHits> Search(const std::vector<std::string>& terms, std::size_t limit,
                            double time_limit_seconds) const;

  const std::filesystem::path& directory() const;

 private:
  struct State;
  explicit LocalIndex(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace diagd::tools::documents
