// search_documents' part of `diagd check`: the local backend's Markdown files
// and index, or whether the http backend answers a small query with the
// documents shape. One row.
#include <filesystem>
#include <system_error>
#include <variant>

#include "config/config.h"
#include "http/http_client.h"
#include "tools/documents/documents_backend.h"
#include "tools/documents/documents_tool.h"
#include "tools/documents/index_census.h"
#include "tools/documents/markdown_tree.h"

namespace diagd::tools::documents {
namespace {

using Millis = std::chrono::milliseconds;

// The advice table, in docs/check.md's order; the enum indexes it.
enum Misconfiguration {
  kFolderUnusable,
  kCacheUnusable,
  kEmpty,
  kIndexFailed,
  kServiceDown,
  kServiceRefused,
};
constexpr AdviceEntry kAdvice[] = {
    {"DOCUMENTS_FOLDER_UNUSABLE", "documents",
     "tools.documents.path is missing, not a folder, or unreadable",
     "set tools.documents.path to the folder of your Markdown runbooks and documents"},
    {"DOCUMENTS_CACHE_UNUSABLE", "documents",
     "the index folder under tools.documents.cache_path cannot be used",
     "set tools.documents.cache_path to a writable folder outside tools.documents.path"},
    {"DOCUMENTS_EMPTY", "documents",
     "no Markdown file (*.md, *.markdown) under tools.documents.path",
     "put your Markdown runbooks under {path}, or point tools.documents.path at the folder "
     "that holds them"},
    {"DOCUMENTS_INDEX_FAILED", "documents", "the index could not be built or read",
     "make {cache} writable, with free space, then run diagd check again"},
    {"DOCUMENTS_SERVICE_DOWN", "documents",
     "the http backend's url does not answer (refused, DNS, timeout, 5xx)",
     "start the retrieval service at {url}, or fix tools.documents.url"},
    {"DOCUMENTS_SERVICE_REFUSED", "documents",
     "the url answers, but with an error status or not the documents shape",
     "make tools.documents.url answer POST {\"query\": ...} with {\"documents\": [...]} "
     "(docs/configuration.md), or fix the url"},
};

// The query the http backend is sent: any text will do.
constexpr const char* kProbeQuery = "diagd check";

CheckRow CheckLocal(const DocumentsToolConfig& documents, const Clock& clock, Millis max_time) {
  CheckRow row{"documents", documents.path.string(), true, "", ""};
  AdviceValues values{{"path", documents.path.string()}, {"cache", documents.cache_path.string()}};
  auto adapter = OpenLocalAdapter(documents, clock, Millis(0));
  if (!adapter) {
    bool cache = adapter.error().message.starts_with(kCacheFolderError);
    return Problem(row, adapter.error().message, kAdvice[cache ? kCacheUnusable : kFolderUnusable],
                   values);
  }
  Status refreshed = (*adapter)->Refresh(clock.Monotonic() + max_time);
  bool unfinished = !refreshed && refreshed.error().code == ErrorCode::kDeadlineExceeded;
  if (!refreshed && !unfinished) {
    return Problem(row, refreshed.error().message, kAdvice[kIndexFailed], values);
  }
  std::error_code error;
  auto tree = ScanMarkdownTree(std::filesystem::canonical(documents.path, error));
  if (!tree) return Problem(row, tree.error().message, kAdvice[kFolderUnusable], values);
  auto sections = CountIndexedSections((*adapter)->index_directory());
  if (!sections) return Problem(row, sections.error().message, kAdvice[kIndexFailed], values);

  row.detail = Plural(tree->size(), "Markdown file", "Markdown files") + ", " +
               Plural(*sections, "section", "sections") + " indexed";
  if (unfinished) {
    row.detail += " so far (the index was not complete after " +
                  std::to_string(max_time.count() / 1000) + " s; the next search goes on)";
  }
  if (tree->empty() || (*sections == 0 && !unfinished)) {
    return Problem(row, row.detail, kAdvice[kEmpty], values);
  }
  return row;
}

// The adapter's own result, before the boundary counts it.
std::size_t EvidenceCount(const ToolResult& result) {
  const auto* documents = std::get_if<DocumentsResult>(&result);
  return documents == nullptr ? 0 : documents->evidence.size();
}

CheckRow CheckHttp(const DocumentsToolConfig& documents, const Clock& clock) {
  std::string url = http::RedactUrl(documents.url);
  CheckRow row{"documents", url, true, "", ""};
  AdviceValues values{{"url", url}};
  // The http backend opens without I/O and cannot fail to.
  auto adapter = OpenAdapter(documents, clock);
  if (!adapter) return Problem(row, adapter.error().message, kAdvice[kServiceDown], values);
  auto answered = (*adapter)->Execute(DocumentsRequest{kProbeQuery},
                                      clock.Monotonic() + Millis(documents.timeout_ms));
  if (!answered) {
    const AdapterFailure& failure = answered.error();
    std::string detail = std::string("the documents service: ") + ToolErrorCodeString(failure.code);
    if (!failure.message.empty()) detail += " (" + failure.message + ")";
    bool down = failure.code != ToolErrorCode::kQueryFailed;
    return Problem(row, detail, kAdvice[down ? kServiceDown : kServiceRefused], values);
  }
  row.detail = "answers: " + Plural(EvidenceCount(answered->result), "document", "documents") +
               " for the query \"" + kProbeQuery + "\"";
  return row;
}

}  // namespace

std::vector<CheckRow> SearchDocuments::Check(const CheckContext& context) {
  const DocumentsToolConfig& documents = context.config.tools.documents;
  if (documents.backend == DocumentsToolConfig::Backend::kHttp) {
    context.Announce("documents", http::RedactUrl(documents.url));
    return {CheckHttp(documents, context.clock)};
  }
  context.Announce("documents", documents.path.string());
  return {CheckLocal(documents, context.clock, context.max_time)};
}

std::span<const AdviceEntry> SearchDocuments::Advice() { return kAdvice; }

}  // namespace diagd::tools::documents
