#include "release/cited_record.h"

#include "core/text.h"

namespace diagd::release {

RecordOwnership ReadCitedRecord(tools::CanonicalInvocationStore& store, const std::string& run_id,
                                const std::string& tool_call_id, const CitedRecordReader& read) {
  RecordOwnership ownership = RecordOwnership::kUnknown;
  auto stored = store.Read(run_id, tool_call_id, [&](const tools::CanonicalRecord* record) {
    if (record == nullptr) return;
    if (record->run_id != run_id || tools::ToolCallIdOf(record->result) != tool_call_id) {
      ownership = RecordOwnership::kForeign;
      return;
    }
    ownership = RecordOwnership::kOwned;
    read(*record);
  });
  return stored ? ownership : RecordOwnership::kStoreFailed;
}

std::optional<std::string> CitedObservation(tools::CanonicalInvocationStore& store,
                                            const std::string& run_id,
                                            const std::string& tool_call_id,
                                            const tools::ObservationLimits& limits) {
  std::optional<std::string> observation;
  (void)ReadCitedRecord(store, run_id, tool_call_id, [&](const tools::CanonicalRecord& record) {
    if (tools::EvidenceStatusOf(record.result) != tools::EvidenceStatus::kError) {
      observation = tools::ResultObservation(record.result, limits);
    }
  });
  return observation;
}

bool QuoteLongEnough(std::string_view quote) {
  return !text::IsBlank(quote) && text::CodePointCount(quote) >= kMinQuoteCodePoints;
}

bool QuoteOccursIn(const tools::ToolResult& result, std::string_view quote) {
  auto holds = [quote](std::string_view text) {
    return text.find(quote) != std::string_view::npos;
  };
  return tools::VisitFace(
      result, [&](auto face, const auto& r) { return decltype(face)::AnyCitable(r, holds); });
}

}  // namespace diagd::release
