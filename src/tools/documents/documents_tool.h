// search_documents: its face (tool_face.h): input rules, schema and scope,
// and what release, the views and the store need of its results.
#pragma once

#include <boost/json/fwd.hpp>

#include "tools/documents/documents_types.h"
#include "tools/tool_face.h"

namespace diagd::tools::documents {

inline constexpr std::size_t kMaxQueryChars = 500;

InputResult<DocumentsRequest> ParseInput(const boost::json::object& input);
// Identity: the query with white space trimmed and collapsed.
Scope ScopeOf(const DocumentsRequest& request);
boost::json::object InputSchema();
boost::json::object RequestJson(const DocumentsRequest& request);

struct SearchDocuments {
  static constexpr ToolName kName = kSearchDocuments;
  using Request = DocumentsRequest;
  using Result = DocumentsResult;

  static bool Offered(const CatalogOptions&) { return true; }
  static std::string Description(const CatalogOptions& options);
  static boost::json::object InputSchema(const CatalogOptions&) {
    return documents::InputSchema();
  }
  static InputResult<Request> ParseInput(const boost::json::object& input,
                                         const CatalogOptions&) {
    return documents::ParseInput(input);
  }
  static Scope ScopeOf(const Request& request) { return documents::ScopeOf(request); }
  static boost::json::object RequestJson(const Request& request) {
    return documents::RequestJson(request);
  }
  static void Bind(Result& result, const Request& request) { result.query = request.query; }
  // Evidence without excerpt is dropped. An upstream relevance never
  // upgrades an empty result.
  static void Canonicalize(Result& result, const ResultLimits& limits);
  static std::size_t Items(const Result& result) { return result.evidence.size(); }
  static const std::vector<std::string_view>& CanonicalKeys();
  static const std::vector<std::string_view>& ObservationKeys();
  static void WriteField(const Result& result, std::string_view key, const ResultView& view,
                         json::JsonWriter& w);
  // A quote is verified against an excerpt or a title.
  static bool AnyCitable(const Result& result, const TextTest& holds);
  static void MentionTexts(const Result& result, const TextSink& add);
  static void NamesRead(const Result&, const TextSink&) {}
  static void Facts(const Result& result, const TextSink& add);
  static const char* Label(bool english) { return english ? "document search" : "文档检索"; }
  static void EncodeResult(const Result& result, ByteWriter& w);
  static Result DecodeResult(ByteReader& r);
  // Its rules and bounds from its config section (NAME_settings.cc).
  static void ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog);
  static void ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary);
  // The backend (NAME_backend.cc, in the backend library).
  static diagd::Result<OpenedBackend> OpenBackend(const BackendContext& context);
  // `diagd check` (NAME_check.cc, in the backend library).
  static std::vector<CheckRow> Check(const CheckContext& context);
  static std::span<const AdviceEntry> Advice();
};

}  // namespace diagd::tools::documents
