#include "tools/observation.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "core/json_writer.h"
#include "core/text.h"
#include "tools/result_json.h"

namespace diagd::tools {
namespace {

constexpr std::size_t kMaxErrorMessageChars = 200;

std::size_t ItemCount(const ToolResult& result) {
  return VisitFace(result, [](auto face, const auto& r) { return decltype(face)::Items(r); });
}

std::string WriteObservation(const ToolResult& result, std::size_t max_items,
                             std::optional<std::string_view> stop_reason) {
  json::JsonWriter writer(1024);
  writer.BeginObject();
  const auto& whitelist =
      VisitFace(result, [](auto face, const auto&) -> const std::vector<std::string_view>& {
        return decltype(face)::ObservationKeys();
      });
  WriteResultMembers(result, ResultView{&whitelist, max_items}, writer);
  if (stop_reason) writer.Key("stop_required").Bool(true).Key("reason").String(*stop_reason);
  writer.EndObject();
  return writer.Take();
}

// The observation, bounded by its size.
std::string BoundedObservation(const ToolResult& result, const ObservationLimits& limits,
                               std::optional<std::string_view> stop_reason) {
  auto fits = [&](const std::string& written) { return written.size() <= limits.max_bytes; };
  std::size_t items = ItemCount(result);
  std::string whole = WriteObservation(result, items, stop_reason);
  if (fits(whole) || items == 0) return whole;
  // Too large: keep the most items that fit (binary search over the item
  // count; the size grows with it). Which ones: ResultView.
  std::size_t low = 0, high = items;
  while (low < high) {
    std::size_t mid = (low + high + 1) / 2;
    if (fits(WriteObservation(result, mid, stop_reason))) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  if (low == items) low = items - 1;  // the full list did not fit
  return WriteObservation(result, low, stop_reason);
}

boost::json::array AllowedGains() { return {"GAINED", "NO_GAIN"}; }

}  // namespace

const std::vector<std::string_view>& ObservationWhitelist(ToolName tool) {
  static const std::vector<std::string_view> kNone;
  const std::vector<std::string_view>* keys = &kNone;
  RegisteredTools::ForEach([&](auto face) {
    if (decltype(face)::kName == tool) keys = &decltype(face)::ObservationKeys();
  });
  return *keys;
}

std::string ResultObservation(const ToolResult& result, const ObservationLimits& limits,
                              std::optional<std::string_view> stop_reason) {
  return BoundedObservation(result, limits, stop_reason);
}

std::string ErrorObservation(std::string_view tool_call_id, ToolErrorCode code,
                             std::string_view message) {
  boost::json::object view{{"tool_call_id", tool_call_id},
                           {"evidence_status", "ERROR"},
                           {"error_code", ToolErrorCodeString(code)}};
  if (code == ToolErrorCode::kQueryFailed && !message.empty()) {
    view["message"] = text::TruncateCodePoints(message, kMaxErrorMessageChars);
  }
  return json::Serialize(view);
}

std::string ProtocolViolationObservation(std::string_view tool_call_id, ViolationType type,
                                         const std::optional<std::string>& expected_previous_id,
                                         bool missing_input) {
  boost::json::object view{{"tool_call_id", tool_call_id},
                           {"error_code", "INVALID_PROGRESS_PROTOCOL"},
                           {"repair_required", true},
                           {"violation_type", ViolationTypeString(type)}};
  if (type == ViolationType::kMissingPreviousObservation) {
    view["missing_field"] = "previous_observation";
  } else if (type == ViolationType::kMalformedEnvelope && missing_input) {
    view["missing_field"] = "input";
  }
  if (expected_previous_id) {
    view["expected_previous_tool_call_id"] = *expected_previous_id;
    view["allowed_information_gain"] = AllowedGains();
  }
  return json::Serialize(view);
}

std::string InvalidInputObservation(std::string_view tool_call_id, const InputError& error) {
  return json::Serialize(boost::json::object{{"tool_call_id", tool_call_id},
                                             {"error_code", "INVALID_TOOL_INPUT"},
                                             {"repair_required", true},
                                             {"field", error.field},
                                             {"reason", error.reason}});
}

std::string UnknownToolObservation(std::string_view tool_call_id) {
  return json::Serialize(
      boost::json::object{{"tool_call_id", tool_call_id}, {"error_code", "UNKNOWN_TOOL"}});
}

std::string DuplicateScopeObservation(std::string_view tool_call_id,
                                      std::string_view duplicate_of_tool_call_id) {
  return json::Serialize(boost::json::object{{"tool_call_id", tool_call_id},
                                             {"error_code", "DUPLICATE_SCOPE"},
                                             {"duplicate_of_tool_call_id",
                                              duplicate_of_tool_call_id}});
}

std::string StopObservation(std::string_view tool_call_id, std::string_view stop_reason) {
  return json::Serialize(boost::json::object{
      {"tool_call_id", tool_call_id}, {"stop_required", true}, {"reason", stop_reason}});
}

}  // namespace diagd::tools
