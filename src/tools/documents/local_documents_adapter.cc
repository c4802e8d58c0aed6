#include "tools/documents/local_documents_adapter.h"

#include <xapian.h>

#include <system_error>
#include <utility>

#include "core/json_writer.h"
#include "runtime/fiber.h"
#include "tools/documents/local_index.h"
#include "tools/documents/markdown_sections.h"
#include "tools/documents/markdown_tree.h"
#include "tools/documents/search_terms.h"

namespace diagd::tools::documents {
namespace fs = std::filesystem;
namespace {

using Failure = Unexpected<AdapterFailure>;

constexpr std::chrono::milliseconds kFirstBuildPoll{10};

Failure Timeout() { return Failure(AdapterFailure{ToolErrorCode::kToolTimeout, {}}); }
Failure Unavailable() { return Failure(AdapterFailure{ToolErrorCode::kToolUnavailable, {}}); }

std::int64_t Nanos(MonoTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

// What the canonical record keeps as this backend's raw response: which
// sections came back in which order, never their text.
std::string RawSummary(const std::vector<std::string>& terms, const SearchHits& hits) {
  json::JsonWriter out(256);
  out.BeginObject().Key("backend").String("local").Key("terms").BeginArray();
  for (const auto& term : terms) out.String(term);
  out.EndArray().Key("hits").BeginArray();
  std::int64_t rank = 0;
  for (const auto& section : hits.sections) {
    out.BeginObject()
        .Key("rank")
        .Int(++rank)
        .Key("document_id")
        .String(section.document_id)
        .Key("source")
        .String(section.source)
        .EndObject();
  }
  out.EndArray().Key("more").Bool(hits.more).EndObject();
  return out.Take();
}

}  // namespace

Result<std::unique_ptr<LocalDocumentsAdapter>> LocalDocumentsAdapter::Open(
    LocalDocumentsOptions options, const Clock& clock) {
  if (options.root.empty()) return Error::InvalidArgument("the documents folder is not set");
  if (options.cache_dir.empty())
    return Error::InvalidArgument("the documents cache folder is not set");
  std::error_code error;
  fs::path root = fs::canonical(options.root, error);
  if (error || !fs::is_directory(root, error)) {
    return Error::InvalidArgument("the documents folder " + options.root.string() +
                                  " does not exist or is not a folder");
  }
  fs::directory_iterator probe(root, error);
  if (error) {
    return Error::InvalidArgument("the documents folder " + root.string() +
                                  " cannot be read: " + error.message());
  }
  fs::path cache = fs::weakly_canonical(fs::absolute(options.cache_dir, error), error);
  if (error) {
    return Error::InvalidArgument("the documents cache folder " + options.cache_dir.string() +
                                  " is not usable: " + error.message());
  }
  if (IsWithin(cache, root)) {
    return Error::InvalidArgument("the documents cache folder " + cache.string() +
                                  " must not be inside the documents folder " + root.string());
  }
  // One index per tree, so several trees can share a cache folder.
  fs::path directory = cache / ("documents-" + StableHashHex(root.string()));
  auto index = LocalIndex::Open(root, directory);
  if (!index) {
    return Error{index.error().code, std::string(kCacheFolderError) + " " + cache.string() +
                                         ": " + index.error().message};
  }
  options.root = std::move(root);
  options.cache_dir = std::move(cache);
  return std::unique_ptr<LocalDocumentsAdapter>(
      new LocalDocumentsAdapter(std::move(options), clock, std::move(*index)));
}

LocalDocumentsAdapter::LocalDocumentsAdapter(LocalDocumentsOptions options, const Clock& clock,
                                             std::unique_ptr<LocalIndex> index)
    : options_(std::move(options)), clock_(clock), index_(std::move(index)) {}

LocalDocumentsAdapter::~LocalDocumentsAdapter() = default;

const fs::path& LocalDocumentsAdapter::index_directory() const { return index_->directory(); }

Status LocalDocumentsAdapter::Refresh(MonoTime deadline) {
  std::lock_guard lock(refresh_mu_);
  return RefreshLocked(deadline);
}

Status LocalDocumentsAdapter::RefreshLocked(MonoTime deadline, const std::stop_token& cancel) {
  auto stats = index_->Refresh(clock_, deadline, cancel);
  if (stats && stats->locked_elsewhere && !built_) {
    // Another process is writing the index, perhaps building it: it may be
    // missing or half done, so this one does not answer from it yet.
    stats = Error::Unavailable("the documents index is being written by another process");
  }
  if (stats) built_ = true;
  // A failed check (other than running out of time or a cancel, which leave
  // work to go on with) waits for the interval too, so a broken tree is not
  // rescanned on every search.
  if (stats || (stats.error().code != ErrorCode::kDeadlineExceeded &&
                stats.error().code != ErrorCode::kCancelled)) {
    next_check_ =
        Nanos(clock_.Monotonic()) +
        std::chrono::duration_cast<std::chrono::nanoseconds>(options_.refresh_interval).count();
  }
  if (!stats) return stats.error();
  return OkStatus();
}

Result<void, AdapterFailure> LocalDocumentsAdapter::RefreshIfDue(MonoTime deadline,
                                                                const std::stop_token& cancel) {
  if (built_ && Nanos(clock_.Monotonic()) < next_check_) return {};
  std::unique_lock lock(refresh_mu_, std::try_to_lock);
  while (!lock.owns_lock()) {
    // Another search is refreshing: answer from the index as it stands,
    // unless there is none yet; then wait for it, but not past the deadline.
    // (Polled: only the first build is waited for, and a timed lock is
    // invisible to GCC 12's ThreadSanitizer.)
    if (built_) return {};
    if (cancel.stop_requested()) return Unavailable();
    if (clock_.Monotonic() >= deadline) return Timeout();
    runtime::SleepFor(kFirstBuildPoll);
    lock.try_lock();
  }
  if (built_ && Nanos(clock_.Monotonic()) < next_check_) return {};  // done while we waited
  Status status = RefreshLocked(deadline, cancel);
  if (status) return {};
  if (status.error().code == ErrorCode::kCancelled) return Unavailable();
  if (status.error().code == ErrorCode::kDeadlineExceeded) return Timeout();
  // The tree or the index failed: a complete earlier index still answers.
  if (built_) return {};
  return Unavailable();
}

Result<AdapterOutput, AdapterFailure> LocalDocumentsAdapter::DoExecute(
    const ToolRequest& request, MonoTime deadline, const std::stop_token& cancel) {
  const auto* documents = std::get_if<DocumentsRequest>(&request);
  if (documents == nullptr) {
    return Failure(AdapterFailure{ToolErrorCode::kQueryFailed, "not a search_documents request"});
  }
  // The index catches Xapian's exceptions itself; this is the module's last
  // line (the stemmer, allocation), so that nothing is thrown at the boundary.
  try {
    return Answer(*documents, deadline, cancel);
  } catch (const Xapian::Error&) {
    return Unavailable();
  } catch (const std::exception&) {
    return Unavailable();
  }
}

Result<AdapterOutput, AdapterFailure> LocalDocumentsAdapter::Answer(const DocumentsRequest& request,
                                                                    MonoTime deadline,
                                                                    const std::stop_token& cancel) {
  auto passed = [&] { return clock_.Monotonic() >= deadline; };
  if (cancel.stop_requested()) return Unavailable();
  if (passed()) return Timeout();
  if (auto ready = RefreshIfDue(deadline, cancel); !ready) return Failure(ready.error());
  if (cancel.stop_requested()) return Unavailable();
  if (passed()) return Timeout();

  std::vector<std::string> terms = QueryTerms(request.query);
  SearchHits hits;
  if (!terms.empty()) {
    double seconds = std::chrono::duration<double>(deadline - clock_.Monotonic()).count();
    auto found = index_->Search(terms, options_.max_evidence, seconds);
    if (!found) return passed() ? Timeout() : Unavailable();
    hits = std::move(*found);
    if (passed()) return Timeout();
  }

  DocumentsResult result;
  result.query = request.query;
  result.truncated = hits.more;
  for (const IndexedSection& section : hits.sections) {
    result.evidence.push_back(
        {section.document_id, section.source, section.title, section.breadcrumb,
         ExcerptAround(section.body, section.matched_terms, options_.max_excerpt_chars)});
  }
  std::string raw = RawSummary(terms, hits);
  return AdapterOutput{std::move(result), std::move(raw)};
}

}  // namespace diagd::tools::documents
