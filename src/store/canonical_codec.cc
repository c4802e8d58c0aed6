#include "store/canonical_codec.h"

#include "tools/byte_codec.h"
#include "tools/tool_result.h"

namespace diagd::store {
namespace {

using tools::ByteReader;
using tools::ByteWriter;
using tools::CanonicalRecord;
using tools::ToolErrorCode;

constexpr std::string_view kMagic = "DCR";
constexpr char kVersion = 1;

constexpr ToolErrorCode kErrorCodes[] = {ToolErrorCode::kToolUnavailable,
                                         ToolErrorCode::kToolTimeout, ToolErrorCode::kQueryFailed};

const char* NameOf(tools::ToolName tool) { return tool.c_str(); }

// The registered tool named by the next string, or a failed read.
tools::ToolName ReadTool(ByteReader& r) {
  std::string name = r.String();
  auto tool = tools::ParseToolName(name);
  if (!tool) r.Fail();
  return tool.value_or(tools::ToolName());
}

}  // namespace

std::string EncodeCanonicalRecord(const CanonicalRecord& record) {
  ByteWriter w;
  for (char c : kMagic) w.Byte(static_cast<std::uint8_t>(c));
  w.Byte(kVersion);
  w.String(record.run_id);
  w.String(record.tool_call_id);
  w.String(NameOf(record.tool));
  w.String(record.request_json);
  w.String(record.raw_response);
  w.Bool(record.raw_response_truncated);
  w.String(record.scope.identity);
  w.String(record.scope.summary);
  w.Bool(record.error_code.has_value());
  if (record.error_code) w.String(tools::ToolErrorCodeString(*record.error_code));
  w.String(record.error_message);
  // The result's own tool, which need not be the record's (a record is
  // stored as it was built, consistent or not).
  w.String(NameOf(tools::ToolOf(record.result)));
  tools::VisitFace(record.result,
                   [&](auto face, const auto& result) { decltype(face)::EncodeResult(result, w); });
  return w.Take();
}

Result<CanonicalRecord> DecodeCanonicalRecord(std::string_view bytes) {
  auto damaged = [](std::string_view what) {
    return Error::Internal("stored canonical record is damaged: " + std::string(what));
  };
  if (bytes.size() < kMagic.size() + 1 || bytes.substr(0, kMagic.size()) != kMagic) {
    return damaged("it does not start with the record's magic");
  }
  if (bytes[kMagic.size()] != kVersion) {
    return damaged("unknown version " +
                   std::to_string(static_cast<unsigned char>(bytes[kMagic.size()])));
  }
  ByteReader r(bytes.substr(kMagic.size() + 1));
  CanonicalRecord record;
  record.run_id = r.String();
  record.tool_call_id = r.String();
  record.tool = ReadTool(r);
  record.request_json = r.String();
  record.raw_response = r.String();
  record.raw_response_truncated = r.Bool();
  record.scope.identity = r.String();
  record.scope.summary = r.String();
  if (r.Bool()) record.error_code = r.Named(kErrorCodes, tools::ToolErrorCodeString);
  record.error_message = r.String();
  tools::ToolName result_tool = ReadTool(r);
  tools::RegisteredTools::ForEach([&](auto face) {
    using Face = decltype(face);
    if (r.ok() && Face::kName == result_tool) record.result = Face::DecodeResult(r);
  });
  if (!r.ok()) return damaged("a field is cut short or holds an unknown value");
  if (!r.AtEnd()) return damaged("bytes follow the last field");
  return record;
}

}  // namespace diagd::store
