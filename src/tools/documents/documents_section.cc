#include "tools/documents/documents_section.h"

#include "config/toml_reader.h"

namespace diagd::tools::documents {

using namespace config::internal;

void DocumentsSection::Read(TableReader& table, DocumentsSection& out) {
  DocumentsToolConfig& documents = out.documents;
  if (auto backend = table.ReadChoice("backend", {"local", "http"})) {
    documents.backend =
        *backend == 0 ? DocumentsToolConfig::Backend::kLocal : DocumentsToolConfig::Backend::kHttp;
  }
  table.Read("path", documents.path);
  table.Read("cache_path", documents.cache_path);
  table.Read("url", documents.url, CheckOptionalHttpUrl);
  table.Read("max_evidence", documents.max_evidence);
  table.Read("max_excerpt_chars", documents.max_excerpt_chars);
  table.Read("timeout_ms", documents.timeout_ms);
  table.RejectUnknownKeys();
}

void DocumentsSection::ResolvePaths(const std::filesystem::path& base, DocumentsSection& out) {
  out.documents.path = ResolvePath(base, out.documents.path);
  out.documents.cache_path = ResolvePath(base, out.documents.cache_path);
}

std::vector<LocalPath> DocumentsSection::LocalPaths(const DocumentsSection& section) {
  if (section.documents.backend != DocumentsToolConfig::Backend::kLocal) return {};
  return {{"[tools.documents] path", section.documents.path, true}};
}

void DocumentsSection::CheckRules(const DocumentsSection& section, const KeyLocations& at,
                                  Problems& problems) {
  const DocumentsToolConfig& documents = section.documents;
  if (documents.backend != DocumentsToolConfig::Backend::kHttp || !documents.url.empty()) return;
  problems.Add(at.Label("tools.documents.backend"),
               "\"http\" requires tools.documents.url (an http:// or https:// URL)");
}

}  // namespace diagd::tools::documents
