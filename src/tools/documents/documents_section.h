// [tools.documents]: where search_documents finds documents (tool_section.h).
#pragma once

#include <filesystem>
#include <string>

#include "tools/documents/documents_types.h"
#include "tools/tool_section.h"

namespace diagd::tools::documents {

struct SearchDocuments;  // the face (documents_tool.h)

struct DocumentsToolConfig {
  enum class Backend { kLocal, kHttp };
  Backend backend = Backend::kLocal;
  std::filesystem::path path = "docs";  // absolute after loading
  // The local backend's index (never inside `path`); absolute after loading.
  std::filesystem::path cache_path = "data/cache";
  std::string url;  // http(s), required by kHttp
  int max_evidence = 5;
  int max_excerpt_chars = 600;
  int timeout_ms = 10000;
};

struct DocumentsSection {
  using Face = SearchDocuments;
  using Catalog = DocumentsCatalog;
  using Limits = DocumentsLimits;
  static constexpr const char* kTable = "documents";

  DocumentsToolConfig documents;

  static void Read(config::internal::TableReader& table, DocumentsSection& out);
  static void ResolvePaths(const std::filesystem::path& base, DocumentsSection& out);
  static std::vector<LocalPath> LocalPaths(const DocumentsSection& section);
  // The http backend requires a url.
  static void CheckRules(const DocumentsSection& section, const config::internal::KeyLocations& at,
                         config::internal::Problems& problems);
};

}  // namespace diagd::tools::documents
