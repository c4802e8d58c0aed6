// A tool's one face: everything the harness, release, store and catalog need
// to know of a tool, given by one struct of static members in the tool's
// folder (documents::SearchDocuments, logs::QueryLogs, ...). A struct is a
// tool when it satisfies `ToolFace` below; tool_registry.h lists the
// registered ones, and generic code reaches a tool only through the
// registry. src/tools/README.md tells how to add one.
//
// Besides the face, a tool has a config section (tool_section.h), a backend
// (a ToolAdapter, which the face's OpenBackend opens, tool_backend.h), its
// part of `diagd check` (tool_check.h) and, where it has rules, a member of
// CatalogOptions (catalog_options.h).
#pragma once

#include <boost/json/object.hpp>
#include <concepts>
#include <cstddef>
#include <functional>
#include <span>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_writer.h"
#include "core/result.h"
#include "tools/byte_codec.h"
#include "tools/catalog_options.h"
#include "tools/input_rules.h"
#include "tools/scope.h"
#include "tools/tool_backend.h"
#include "tools/tool_check.h"
#include "tools/tool_sections.h"
#include "tools/tool_types.h"

namespace diagd::config {
struct ToolsConfig;
}  // namespace diagd::config

namespace diagd::tools {

struct BoundaryOptions;  // tool_boundary.h

// Bounds applied to every result that leaves a tool, whatever the backend
// did: each registered tool's `Limits` part (tool_section.h).
struct ResultLimits : RegisteredSections::Limits {};

// A view of a result is a list of its keys: the canonical view (what the
// canonical store keeps) lists them all; the model observation only its
// whitelist. Both are written by the same per-key writers, so a key absent
// from a list cannot appear in that view.
struct ResultView {
  const std::vector<std::string_view>* keys = nullptr;  // which keys, in this order
  // Items of the result's list (evidence, rows, series) beyond this are left
  // out, and `truncated` is then written as true; events are left out from
  // the middle (EarliestShare).
  std::size_t max_items = std::numeric_limits<std::size_t>::max();
};

// Receives a text of a result (a quote source, a mention, a fact).
using TextSink = std::function<void(const std::string&)>;
// Asked of each text a quote may be verified against; true stops the search.
using TextTest = std::function<bool(std::string_view)>;

// What each member does, by example of query_logs:
template <typename T>
concept ToolFace = requires(const typename T::Request& request, typename T::Result& result,
                            const typename T::Result& const_result, const CatalogOptions& options,
                            const boost::json::object& input, const ResultLimits& limits,
                            const ResultView& view, json::JsonWriter& writer, ByteWriter& bytes,
                            ByteReader& reader, std::string_view key, const TextSink& sink,
                            const TextTest& test, bool english,
                            const BackendContext& context, const CheckContext& check,
                            const config::ToolsConfig& tools, CatalogOptions& catalog,
                            BoundaryOptions& boundary) {
  // The wire name ("query_logs") and the two value types: the validated
  // business request, and the canonical result, which carries the common
  // fields evidence_status, tool_call_id, returned_count and truncated.
  { T::kName } -> std::convertible_to<ToolName>;
  // Catalog: whether the configuration offers the tool at all, its
  // description in the configured language (naming what it can reach), its
  // business input schema, and the input rules (invalid input is an
  // InputError the model can repair).
  { T::Offered(options) } -> std::same_as<bool>;
  { T::Description(options) } -> std::same_as<std::string>;
  { T::InputSchema(options) } -> std::same_as<boost::json::object>;
  { T::ParseInput(input, options) } -> std::same_as<InputResult<typename T::Request>>;
  // Scope normalization: two requests repeat each other when their
  // identities are equal; the summary is what users and traces see.
  { T::ScopeOf(request) } -> std::same_as<Scope>;
  { T::RequestJson(request) } -> std::same_as<boost::json::object>;
  // Writes the request's own fields onto a result, whatever the backend echoed.
  { T::Bind(result, request) } -> std::same_as<void>;
  // Bounds a backend's result (setting truncated), drops unusable items and
  // sets returned_count and evidence_status from what is left.
  { T::Canonicalize(result, limits) } -> std::same_as<void>;
  // The length of the result's list, which views and observations cut.
  { T::Items(const_result) } -> std::same_as<std::size_t>;
  // Every key of the canonical view, in contract order; the model
  // observation's whitelist; a writer of one non-common key (which writes
  // the key itself, or nothing for an absent optional).
  { T::CanonicalKeys() } -> std::same_as<const std::vector<std::string_view>&>;
  { T::ObservationKeys() } -> std::same_as<const std::vector<std::string_view>&>;
  { T::WriteField(const_result, key, view, writer) } -> std::same_as<void>;
  // Release: the texts a cited quote is verified against; the texts that
  // mention a subject of the question, and the names (tables) the call
  // read; the facts a safe fallback shows; the tool as users call it.
  { T::AnyCitable(const_result, test) } -> std::same_as<bool>;
  { T::MentionTexts(const_result, sink) } -> std::same_as<void>;
  { T::NamesRead(const_result, sink) } -> std::same_as<void>;
  { T::Facts(const_result, sink) } -> std::same_as<void>;
  { T::Label(english) } -> std::same_as<const char*>;
  // The stored form of a result (canonical store). Stored: change only by
  // adding a new tool, never by renumbering what was written.
  { T::EncodeResult(const_result, bytes) } -> std::same_as<void>;
  { T::DecodeResult(reader) } -> std::same_as<typename T::Result>;
  // Settings (NAME_settings.cc): its rules in the catalog's options and its
  // timeout and result bounds at the boundary, from its config section.
  { T::ConfigureCatalog(tools, catalog) } -> std::same_as<void>;
  { T::ConfigureBoundary(tools, boundary) } -> std::same_as<void>;
  // Opens the tool's backend from the configuration (tool_backend.h); an
  // error names the key to change.
  { T::OpenBackend(context) } -> std::same_as<Result<OpenedBackend>>;
  // `diagd check` (tool_check.h): the rows of what the backend holds, and
  // the misconfigurations they may name, in docs/check.md's order.
  { T::Check(check) } -> std::same_as<std::vector<CheckRow>>;
  { T::Advice() } -> std::same_as<std::span<const AdviceEntry>>;
};

// Helpers every face uses.
namespace face {

// Cuts `s` to `max_chars` code points; records a cut in `truncated`.
void BoundText(std::string& s, std::size_t max_chars, bool& truncated);

template <typename T>
void BoundList(std::vector<T>& items, std::size_t max_items, bool& truncated) {
  if (items.size() > max_items) {
    items.resize(max_items);
    truncated = true;
  }
}

template <typename R>
void SetCountAndStatus(R& r, std::size_t items) {
  r.returned_count = items;
  r.evidence_status = items > 0 ? EvidenceStatus::kEvidenceFound : EvidenceStatus::kNoEvidence;
}

// `names` appended to `description` after `label`, comma-separated.
void AppendNames(std::string& description, const char* label,
                 const std::vector<std::string>& names);

void WriteOptional(const std::optional<std::string>& s, json::JsonWriter& w);

}  // namespace face

}  // namespace diagd::tools
