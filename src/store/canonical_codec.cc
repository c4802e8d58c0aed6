#include "store/canonical_codec.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "core/overloaded.h"

namespace diagd::store {
namespace {

using tools::CanonicalRecord;
using tools::DocumentEvidence;
using tools::DocumentsResult;
using tools::EvidenceStatus;
using tools::LogEvent;
using tools::LogsResult;
using tools::MysqlResult;
using tools::RelevanceLevel;
using tools::SqlValue;
using tools::ToolErrorCode;
using tools::ToolName;

constexpr std::string_view kMagic = "DCR";
constexpr char kVersion = 1;

// Tags of a SQL value. Stored: never renumber.
enum class SqlTag : std::uint8_t { kNull = 0, kBool = 1, kInt = 2, kDouble = 3, kText = 4 };

class Writer {
 public:
  void Byte(std::uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void Bool(bool b) { Byte(b ? 1 : 0); }
  // LEB128: seven bits a byte, low first.
  void Varint(std::uint64_t n) {
    while (n >= 0x80) {
      Byte(static_cast<std::uint8_t>(n | 0x80));
      n >>= 7;
    }
    Byte(static_cast<std::uint8_t>(n));
  }
  void Fixed64(std::uint64_t n) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<std::uint8_t>(n >> (8 * i)));
  }
  void String(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void OptionalString(const std::optional<std::string>& s) {
    Bool(s.has_value());
    if (s) String(*s);
  }
  void Value(const SqlValue& value) {
    std::visit(Overloaded{[&](std::monostate) { Tag(SqlTag::kNull); },
                          [&](bool b) {
                            Tag(SqlTag::kBool);
                            Bool(b);
                          },
                          [&](std::int64_t i) {
                            Tag(SqlTag::kInt);
                            Fixed64(static_cast<std::uint64_t>(i));
                          },
                          [&](double d) {
                            Tag(SqlTag::kDouble);
                            Fixed64(std::bit_cast<std::uint64_t>(d));
                          },
                          [&](const std::string& s) {
                            Tag(SqlTag::kText);
                            String(s);
                          }},
               value);
  }
  std::string Take() { return std::move(out_); }

 private:
  void Tag(SqlTag tag) { Byte(static_cast<std::uint8_t>(tag)); }
  std::string out_;
};

// Reads what Writer wrote. Every read checks the bytes left; the first
// failure sticks (later reads return defaults) and is reported once, at
// the end, so the decoding code reads straight through.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : in_(bytes) {}

  bool ok() const { return ok_; }
  bool AtEnd() const { return in_.empty(); }
  void Fail() { ok_ = false; }

  std::uint8_t Byte() {
    if (!ok_ || in_.empty()) return Failed<std::uint8_t>();
    auto b = static_cast<std::uint8_t>(in_.front());
    in_.remove_prefix(1);
    return b;
  }
  bool Bool() {
    std::uint8_t b = Byte();
    if (b > 1) return Failed<bool>();
    return b == 1;
  }
  std::uint64_t Varint() {
    std::uint64_t n = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      std::uint8_t b = Byte();
      if (!ok_) return 0;
      n |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return n;
    }
    return Failed<std::uint64_t>();
  }
  std::uint64_t Fixed64() {
    if (!ok_ || in_.size() < 8) return Failed<std::uint64_t>();
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) {
      n |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in_[i])) << (8 * i);
    }
    in_.remove_prefix(8);
    return n;
  }
  std::string String() {
    std::uint64_t size = Varint();
    if (!ok_ || size > in_.size()) return Failed<std::string>();
    std::string s(in_.substr(0, size));
    in_.remove_prefix(size);
    return s;
  }
  std::optional<std::string> OptionalString() {
    if (!Bool()) return std::nullopt;
    return String();
  }
  // A list's length: each item takes at least one byte, so a count beyond
  // the bytes left is damage (and is never reserved).
  std::size_t Count() {
    std::uint64_t count = Varint();
    if (!ok_ || count > in_.size()) return Failed<std::size_t>();
    return static_cast<std::size_t>(count);
  }
  SqlValue Value() {
    switch (static_cast<SqlTag>(Byte())) {
      case SqlTag::kNull:
        return std::monostate();
      case SqlTag::kBool:
        return Bool();
      case SqlTag::kInt:
        return static_cast<std::int64_t>(Fixed64());
      case SqlTag::kDouble:
        return std::bit_cast<double>(Fixed64());
      case SqlTag::kText:
        return String();
    }
    return Failed<SqlValue>();
  }
  // One of `values`, by the name `name_of` gives it.
  template <typename E, std::size_t N>
  E Named(const E (&values)[N], const char* (*name_of)(E)) {
    std::string name = String();
    for (E value : values) {
      if (ok_ && name == name_of(value)) return value;
    }
    return Failed<E>();
  }

 private:
  template <typename T>
  T Failed() {
    ok_ = false;
    return T{};
  }

  std::string_view in_;
  bool ok_ = true;
};

constexpr EvidenceStatus kStatuses[] = {EvidenceStatus::kEvidenceFound,
                                        EvidenceStatus::kNoEvidence, EvidenceStatus::kError};
constexpr ToolErrorCode kErrorCodes[] = {ToolErrorCode::kToolUnavailable,
                                         ToolErrorCode::kToolTimeout, ToolErrorCode::kQueryFailed};
constexpr RelevanceLevel kLevels[] = {RelevanceLevel::kHigh, RelevanceLevel::kMedium,
                                      RelevanceLevel::kLow, RelevanceLevel::kReference};

void WriteResult(const DocumentsResult& r, Writer& w) {
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

void WriteResult(const LogsResult& r, Writer& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.topic);
  w.String(r.query);
  w.Fixed64(static_cast<std::uint64_t>(static_cast<std::int64_t>(r.lookback_minutes)));
  w.Varint(r.events.size());
  for (const LogEvent& e : r.events) {
    w.String(e.timestamp);
    w.OptionalString(e.level);
    w.OptionalString(e.service);
    w.String(e.message);
  }
  w.Varint(r.returned_count);
  w.Bool(r.truncated);
}

void WriteResult(const MysqlResult& r, Writer& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.datasource);
  w.String(r.sql);
  w.Varint(r.params.size());
  for (const SqlValue& p : r.params) w.Value(p);
  w.Varint(r.columns.size());
  for (const std::string& c : r.columns) w.String(c);
  w.Varint(r.rows.size());
  for (const auto& row : r.rows) {
    w.Varint(row.size());
    for (const SqlValue& cell : row) w.Value(cell);
  }
  w.Varint(r.returned_count);
  w.Bool(r.truncated);
}

EvidenceStatus ReadStatus(Reader& r) { return r.Named(kStatuses, tools::EvidenceStatusString); }

std::size_t ReadSize(Reader& r) {
  std::uint64_t n = r.Varint();
  if (n > std::numeric_limits<std::size_t>::max()) r.Fail();
  return static_cast<std::size_t>(n);
}

DocumentsResult ReadDocuments(Reader& r) {
  DocumentsResult d;
  d.evidence_status = ReadStatus(r);
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
  d.returned_count = ReadSize(r);
  if (r.Bool()) d.relevance_level = r.Named(kLevels, tools::RelevanceLevelString);
  d.truncated = r.Bool();
  return d;
}

LogsResult ReadLogs(Reader& r) {
  LogsResult l;
  l.evidence_status = ReadStatus(r);
  l.tool_call_id = r.String();
  l.topic = r.String();
  l.query = r.String();
  auto lookback = static_cast<std::int64_t>(r.Fixed64());
  if (lookback < std::numeric_limits<int>::min() || lookback > std::numeric_limits<int>::max()) {
    r.Fail();
  }
  l.lookback_minutes = static_cast<int>(lookback);
  std::size_t n = r.Count();
  for (std::size_t i = 0; i < n && r.ok(); ++i) {
    LogEvent e;
    e.timestamp = r.String();
    e.level = r.OptionalString();
    e.service = r.OptionalString();
    e.message = r.String();
    l.events.push_back(std::move(e));
  }
  l.returned_count = ReadSize(r);
  l.truncated = r.Bool();
  return l;
}

MysqlResult ReadMysql(Reader& r) {
  MysqlResult m;
  m.evidence_status = ReadStatus(r);
  m.tool_call_id = r.String();
  m.datasource = r.String();
  m.sql = r.String();
  std::size_t params = r.Count();
  for (std::size_t i = 0; i < params && r.ok(); ++i) m.params.push_back(r.Value());
  std::size_t columns = r.Count();
  for (std::size_t i = 0; i < columns && r.ok(); ++i) m.columns.push_back(r.String());
  std::size_t rows = r.Count();
  for (std::size_t i = 0; i < rows && r.ok(); ++i) {
    std::vector<SqlValue> row;
    std::size_t cells = r.Count();
    for (std::size_t j = 0; j < cells && r.ok(); ++j) row.push_back(r.Value());
    m.rows.push_back(std::move(row));
  }
  m.returned_count = ReadSize(r);
  m.truncated = r.Bool();
  return m;
}

}  // namespace

std::string EncodeCanonicalRecord(const CanonicalRecord& record) {
  Writer w;
  for (char c : kMagic) w.Byte(static_cast<std::uint8_t>(c));
  w.Byte(kVersion);
  w.String(record.run_id);
  w.String(record.tool_call_id);
  w.String(tools::ToolNameString(record.tool));
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
  w.String(tools::ToolNameString(tools::ToolOf(record.result)));
  std::visit([&](const auto& result) { WriteResult(result, w); }, record.result);
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
  Reader r(bytes.substr(kMagic.size() + 1));
  CanonicalRecord record;
  record.run_id = r.String();
  record.tool_call_id = r.String();
  record.tool = r.Named(tools::kAllTools, tools::ToolNameString);
  record.request_json = r.String();
  record.raw_response = r.String();
  record.raw_response_truncated = r.Bool();
  record.scope.identity = r.String();
  record.scope.summary = r.String();
  if (r.Bool()) record.error_code = r.Named(kErrorCodes, tools::ToolErrorCodeString);
  record.error_message = r.String();
  switch (r.Named(tools::kAllTools, tools::ToolNameString)) {
    case ToolName::kSearchDocuments:
      record.result = ReadDocuments(r);
      break;
    case ToolName::kQueryLogs:
      record.result = ReadLogs(r);
      break;
    case ToolName::kQueryMysql:
      record.result = ReadMysql(r);
      break;
  }
  if (!r.ok()) return damaged("a field is cut short or holds an unknown value");
  if (!r.AtEnd()) return damaged("bytes follow the last field");
  return record;
}

}  // namespace diagd::store
