// search_documents' results as the face presents them (documents_tool.h).
#include <algorithm>

#include "core/text.h"
#include "tools/documents/documents_tool.h"

namespace diagd::tools::documents {

std::string SearchDocuments::Description(const CatalogOptions& options) {
  return options.english
             ? "Search runbooks and technical documents; returns excerpts of the matching "
               "sections. Use it to learn what an error means and how a known failure is "
               "investigated and fixed."
             : "检索运维手册、Runbook 与技术文档，返回与查询相关的章节摘录。适合查找错误信息的含义、"
               "已知故障的排查步骤与处理办法。";
}

void SearchDocuments::Canonicalize(Result& r, const ResultLimits& limits) {
  std::erase_if(r.evidence, [](const DocumentEvidence& e) { return text::IsBlank(e.excerpt); });
  face::BoundList(r.evidence, limits.max_evidence, r.truncated);
  for (auto& item : r.evidence)
    face::BoundText(item.excerpt, limits.max_excerpt_chars, r.truncated);
  face::SetCountAndStatus(r, r.evidence.size());
}

const std::vector<std::string_view>& SearchDocuments::CanonicalKeys() {
  static const std::vector<std::string_view> kKeys = {
      "evidence_status", "tool_call_id",    "query",    "evidence",
      "returned_count",  "relevance_level", "truncated"};
  return kKeys;
}

const std::vector<std::string_view>& SearchDocuments::ObservationKeys() {
  static const std::vector<std::string_view> kKeys = {
      "tool_call_id", "query", "evidence_status", "evidence", "relevance_level", "truncated"};
  return kKeys;
}

void SearchDocuments::WriteField(const Result& r, std::string_view key, const ResultView& view,
                                 json::JsonWriter& w) {
  if (key == "relevance_level" && !r.relevance_level) return;  // optional: absent, not null
  w.Key(key);
  if (key == "query") {
    w.String(r.query);
  } else if (key == "relevance_level") {
    w.String(RelevanceLevelString(*r.relevance_level));
  } else if (key == "evidence") {
    w.BeginArray();
    std::size_t n = std::min(r.evidence.size(), view.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& e = r.evidence[i];
      w.BeginObject()
          .Key("document_id").String(e.document_id)
          .Key("source").String(e.source)
          .Key("title").String(e.title)
          .Key("breadcrumb").String(e.breadcrumb)
          .Key("excerpt").String(e.excerpt)
          .EndObject();
    }
    w.EndArray();
  }
}

bool SearchDocuments::AnyCitable(const Result& r, const TextTest& holds) {
  for (const auto& item : r.evidence) {
    if (holds(item.excerpt) || holds(item.title)) return true;
  }
  return false;
}

void SearchDocuments::MentionTexts(const Result& r, const TextSink& add) {
  for (const auto& item : r.evidence) {
    add(item.document_id);
    add(item.source);
    add(item.title);
    add(item.breadcrumb);
    add(item.excerpt);
  }
}

void SearchDocuments::Facts(const Result& r, const TextSink& add) {
  for (const auto& item : r.evidence) {
    add(item.title.empty() ? item.excerpt : item.title + ": " + item.excerpt);
  }
}

void SearchDocuments::EncodeResult(const Result& r, ByteWriter& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.query);
  w.Varint(r.evidence.size());
  for (const DocumentEvidence& e : r.evidence) {
    w.String(e.document_id);
    w.String(e.source);
    w.String(e.title);
    w.String(e.breadcrumb);
    w.String(e.excerpt);
  }
  w.Varint(r.returned_count);
  w.Bool(r.relevance_level.has_value());
  if (r.relevance_level) w.String(RelevanceLevelString(*r.relevance_level));
  w.Bool(r.truncated);
}

SearchDocuments::Result SearchDocuments::DecodeResult(ByteReader& r) {
  DocumentsResult d;
  d.evidence_status = r.Named(kAllEvidenceStatuses, EvidenceStatusString);
  d.tool_call_id = r.String();
  d.query = r.String();
  std::size_t n = r.Count();
  for (std::size_t i = 0; i < n && r.ok(); ++i) {
    DocumentEvidence e;
    e.document_id = r.String();
    e.source = r.String();
    e.title = r.String();
    e.breadcrumb = r.String();
    e.excerpt = r.String();
    d.evidence.push_back(std::move(e));
  }
  d.returned_count = r.Size();
  if (r.Bool()) d.relevance_level = r.Named(kAllRelevanceLevels, RelevanceLevelString);
  d.truncated = r.Bool();
  return d;
}

}  // namespace diagd::tools::documents
