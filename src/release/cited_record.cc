#include "release/cited_record.h"

#include "core/json_writer.h"
#include "core/overloaded.h"
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

std::optional<std::string> CellText(const tools::SqlValue& cell) {
  return std::visit(
      Overloaded{[](std::monostate) -> std::optional<std::string> { return std::nullopt; },
                 [](bool b) -> std::optional<std::string> { return b ? "true" : "false"; },
                 [](std::int64_t i) -> std::optional<std::string> { return std::to_string(i); },
                 [](double d) -> std::optional<std::string> {
                   // The same digits the observation's JSON writer produced.
                   std::string out;
                   json::AppendDouble(d, out);
                   return out;
                 },
                 [](const std::string& s) -> std::optional<std::string> { return s; }},
      cell);
}

bool QuoteOccursIn(const tools::ToolResult& result, std::string_view quote) {
  auto holds = [quote](std::string_view text) {
    return text.find(quote) != std::string_view::npos;
  };
  return std::visit(Overloaded{[&](const tools::DocumentsResult& r) {
                                 for (const auto& item : r.evidence) {
                                   if (holds(item.excerpt) || holds(item.title)) return true;
                                 }
                                 return false;
                               },
                               [&](const tools::LogsResult& r) {
                                 for (const auto& event : r.events) {
                                   if (holds(event.message)) return true;
                                 }
                                 return false;
                               },
                               [&](const tools::MysqlResult& r) {
                                 for (const auto& row : r.rows) {
                                   for (const auto& cell : row) {
                                     auto cell_text = CellText(cell);
                                     if (cell_text && holds(*cell_text)) return true;
                                   }
                                 }
                                 return false;
                               }},
                    result);
}

}  // namespace diagd::release
