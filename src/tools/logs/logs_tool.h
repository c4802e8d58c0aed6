// query_logs: its face (tool_face.h): input rules, schema and scope, and
// what release, the views and the store need of its results.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/logs/logs_types.h"
#include "tools/tool_face.h"

namespace diagd::tools::logs {

inline constexpr std::size_t kMaxQueryChars = 500;
inline constexpr std::size_t kMaxTopicChars = 128;

// A topic is a plain file name: [A-Za-z0-9._-], not starting with a dot, at
// most kMaxTopicChars. The one rule, used by input validation and by the
// backend, so no path can ever be smuggled in.
bool IsPlainName(std::string_view name);


// A missing lookback takes the default; one above the maximum is clamped to
// it (not an error); one below 1 is OUT_OF_RANGE. With known topics an
// unknown one is UNKNOWN_TOPIC; otherwise a topic must be a plain file name
// ([A-Za-z0-9._-], not starting with a dot): INVALID_NAME.
InputResult<LogsRequest> ParseInput(const boost::json::object& input, const LogsRules& rules);
// Identity: topic, query with white space collapsed, actual lookback; with
// after:/before: bounds, the query without them and the instants they name.
Scope ScopeOf(const LogsRequest& request);
boost::json::object InputSchema(const LogsRules& rules);
boost::json::object RequestJson(const LogsRequest& request);

struct QueryLogs {
  static constexpr ToolName kName = kQueryLogs;
  using Request = LogsRequest;
  using Result = LogsResult;

  static bool Offered(const CatalogOptions&) { return true; }
  // Names the known topics, so the model never has to guess.
  static std::string Description(const CatalogOptions& options);
  static boost::json::object InputSchema(const CatalogOptions& options) {
    return logs::InputSchema(options.logs);
  }
  static InputResult<Request> ParseInput(const boost::json::object& input,
                                         const CatalogOptions& options) {
    return logs::ParseInput(input, options.logs);
  }
  static Scope ScopeOf(const Request& request) { return logs::ScopeOf(request); }
  static boost::json::object RequestJson(const Request& request) {
    return logs::RequestJson(request);
  }
  static void Bind(Result& result, const Request& request);
  // Events without message are dropped; the list keeps both ends.
  static void Canonicalize(Result& result, const ResultLimits& limits);
  static std::size_t Items(const Result& result) { return result.events.size(); }
  static const std::vector<std::string_view>& CanonicalKeys();
  static const std::vector<std::string_view>& ObservationKeys();
  // Events are left out of a view from the middle: the onset and the newest stay.
  static void WriteField(const Result& result, std::string_view key, const ResultView& view,
                         json::JsonWriter& w);
  // A quote is verified against an event's message.
  static bool AnyCitable(const Result& result, const TextTest& holds);
  static void MentionTexts(const Result& result, const TextSink& add);
  static void NamesRead(const Result&, const TextSink&) {}
  static void Facts(const Result& result, const TextSink& add);
  static const char* Label(bool english) { return english ? "log query" : "日志查询"; }
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

}  // namespace diagd::tools::logs
