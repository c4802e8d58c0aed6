#include "store/canonical_codec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace diagd::store {
namespace {

using namespace tools;

std::uint64_t Bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// Equal values, doubles by their bits (NaN and -0.0 included).
void ExpectSameValue(const SqlValue& a, const SqlValue& b, const std::string& where) {
  ASSERT_EQ(a.index(), b.index()) << where;
  if (const double* d = std::get_if<double>(&a)) {
    EXPECT_EQ(Bits(*d), Bits(std::get<double>(b))) << where;
  } else {
    EXPECT_TRUE(a == b) << where;
  }
}

CanonicalRecord Envelope(ToolName tool) {
  CanonicalRecord record;
  record.run_id = "run-7";
  record.tool_call_id = "call-3";
  record.tool = tool;
  record.request_json = R"({"query":"支付 超时"})";
  static constexpr char kRaw[] = "raw\0bytes \xff\xfe cut mid \xe6\x94";
  record.raw_response = std::string(kRaw, sizeof kRaw - 1);  // a NUL, not UTF-8
  record.raw_response_truncated = true;
  record.scope = {"identity|x", "summary y"};
  record.error_code = ToolErrorCode::kQueryFailed;
  record.error_message = "Unknown column 'x'";
  return record;
}

void ExpectSameEnvelope(const CanonicalRecord& a, const CanonicalRecord& b) {
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.tool_call_id, b.tool_call_id);
  EXPECT_EQ(a.tool, b.tool);
  EXPECT_EQ(a.request_json, b.request_json);
  EXPECT_EQ(a.raw_response, b.raw_response);
  EXPECT_EQ(a.raw_response_truncated, b.raw_response_truncated);
  EXPECT_EQ(a.scope.identity, b.scope.identity);
  EXPECT_EQ(a.scope.summary, b.scope.summary);
  EXPECT_EQ(a.error_code, b.error_code);
  EXPECT_EQ(a.error_message, b.error_message);
  EXPECT_EQ(a.result.index(), b.result.index());
}

CanonicalRecord RoundTrip(const CanonicalRecord& record) {
  std::string bytes = EncodeCanonicalRecord(record);
  auto decoded = DecodeCanonicalRecord(bytes);
  EXPECT_TRUE(decoded) << decoded.error().ToString();
  if (!decoded) return {};
  EXPECT_EQ(EncodeCanonicalRecord(*decoded), bytes) << "encoding the decoded record is stable";
  return *decoded;
}

TEST(CanonicalCodec, RoundTripsADocumentsRecordExactly) {
  CanonicalRecord record = Envelope(tools::documents::kSearchDocuments);
  DocumentsResult documents;
  documents.evidence_status = EvidenceStatus::kEvidenceFound;
  documents.tool_call_id = "call-3";
  documents.query = "支付 超时";
  documents.evidence = {{"doc-1", "runbooks/pay.md", "Payments", "Ops > Pay", "重试三次"},
                        {"doc-2", "s2", "t2", "", "e2"}};
  documents.returned_count = 2;
  documents.relevance_level = RelevanceLevel::kReference;
  documents.truncated = true;
  record.result = documents;

  CanonicalRecord back = RoundTrip(record);
  ExpectSameEnvelope(record, back);
  const auto& d = std::get<DocumentsResult>(back.result);
  EXPECT_EQ(d.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(d.tool_call_id, "call-3");
  EXPECT_EQ(d.query, "支付 超时");
  ASSERT_EQ(d.evidence.size(), 2u);
  EXPECT_EQ(d.evidence[0].document_id, "doc-1");
  EXPECT_EQ(d.evidence[0].source, "runbooks/pay.md");
  EXPECT_EQ(d.evidence[0].title, "Payments");
  EXPECT_EQ(d.evidence[0].breadcrumb, "Ops > Pay");
  EXPECT_EQ(d.evidence[0].excerpt, "重试三次");
  EXPECT_EQ(d.evidence[1].breadcrumb, "");
  EXPECT_EQ(d.returned_count, 2u);
  EXPECT_EQ(d.relevance_level, RelevanceLevel::kReference);
  EXPECT_TRUE(d.truncated);

  documents.relevance_level.reset();
  record.result = documents;
  record.error_code.reset();
  CanonicalRecord without = RoundTrip(record);
  EXPECT_FALSE(std::get<DocumentsResult>(without.result).relevance_level.has_value())
      << "an absent relevance stays absent";
  EXPECT_FALSE(without.error_code.has_value());
}

TEST(CanonicalCodec, RoundTripsALogsRecordExactly) {
  CanonicalRecord record = Envelope(tools::logs::kQueryLogs);
  LogsResult logs;
  logs.evidence_status = EvidenceStatus::kNoEvidence;
  logs.tool_call_id = "call-3";
  logs.topic = "gateway";
  logs.query = "level:ERROR";
  logs.lookback_minutes = -5;
  logs.events = {{"2026-01-01T00:00:00.000Z", "ERROR", std::nullopt, "upstream timeout"},
                 {"2026-01-01T00:00:01.000Z", std::nullopt, std::string(), ""}};
  logs.returned_count = 2;
  logs.truncated = false;
  record.result = logs;

  CanonicalRecord back = RoundTrip(record);
  ExpectSameEnvelope(record, back);
  const auto& l = std::get<LogsResult>(back.result);
  EXPECT_EQ(l.evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_EQ(l.topic, "gateway");
  EXPECT_EQ(l.query, "level:ERROR");
  EXPECT_EQ(l.lookback_minutes, -5);
  ASSERT_EQ(l.events.size(), 2u);
  EXPECT_EQ(l.events[0].timestamp, "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(l.events[0].level, std::optional<std::string>("ERROR"));
  EXPECT_EQ(l.events[0].service, std::nullopt);
  EXPECT_EQ(l.events[0].message, "upstream timeout");
  EXPECT_EQ(l.events[1].level, std::nullopt);
  EXPECT_EQ(l.events[1].service, std::optional<std::string>("")) << "empty is not absent";
  EXPECT_EQ(l.returned_count, 2u);
  EXPECT_FALSE(l.truncated);
}

TEST(CanonicalCodec, RoundTripsAMetricsRecordExactly) {
  CanonicalRecord record = Envelope(tools::metrics::kQueryMetrics);
  tools::metrics::MetricsResult metrics;
  metrics.evidence_status = EvidenceStatus::kEvidenceFound;
  metrics.tool_call_id = "call-4";
  metrics.query = "up{job=\"a\"}";
  metrics.lookback_minutes = 90;
  metrics.step_seconds = 15;
  metrics.series.push_back({{{"__name__", "up"}, {"job", "a"}, {"empty", ""}},
                            "up{empty=\"\", job=\"a\"}: first 1 at ...",
                            {{"2026-01-01T00:00:00Z", 1.0}, {"2026-01-01T00:00:15Z", -0.5}}});
  metrics.series.push_back({{}, "{}: first 2", {}});
  metrics.returned_count = 3000;
  metrics.truncated = true;
  record.result = metrics;

  CanonicalRecord back = RoundTrip(record);
  ExpectSameEnvelope(record, back);
  const auto& m = std::get<tools::metrics::MetricsResult>(back.result);
  EXPECT_EQ(m.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(m.query, metrics.query);
  EXPECT_EQ(m.lookback_minutes, 90);
  EXPECT_EQ(m.step_seconds, 15);
  ASSERT_EQ(m.series.size(), 2u);
  EXPECT_EQ(m.series[0].labels, metrics.series[0].labels);
  EXPECT_EQ(m.series[0].summary, metrics.series[0].summary);
  ASSERT_EQ(m.series[0].points.size(), 2u);
  EXPECT_EQ(m.series[0].points[1].time, "2026-01-01T00:00:15Z");
  EXPECT_EQ(m.series[0].points[1].value, -0.5);
  EXPECT_TRUE(m.series[1].labels.empty());
  EXPECT_EQ(m.returned_count, 3000u);
  EXPECT_TRUE(m.truncated);
  // Every cut of the stored form is damage, never a crash.
  std::string bytes = store::EncodeCanonicalRecord(record);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(store::DecodeCanonicalRecord(bytes.substr(0, n))) << n;
  }
}

TEST(CanonicalCodec, RoundTripsAMysqlRecordWithEveryKindOfValue) {
  CanonicalRecord record = Envelope(tools::mysql::kQueryMysql);
  record.error_code = ToolErrorCode::kToolTimeout;
  MysqlResult mysql;
  mysql.evidence_status = EvidenceStatus::kError;
  mysql.tool_call_id = "call-3";
  mysql.datasource = "orders";
  mysql.sql = "SELECT ? , ?";
  mysql.params = {std::int64_t{42}, 42.0, std::string("42"), true, std::monostate()};
  mysql.columns = {"a", "b", ""};
  mysql.rows = {
      {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
       -0.0},
      {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
       std::string("<binary 2048 bytes>")},
      {},
  };
  mysql.returned_count = 3;
  mysql.truncated = true;
  record.result = mysql;

  CanonicalRecord back = RoundTrip(record);
  ExpectSameEnvelope(record, back);
  const auto& m = std::get<MysqlResult>(back.result);
  EXPECT_EQ(m.datasource, "orders");
  EXPECT_EQ(m.sql, "SELECT ? , ?");
  ASSERT_EQ(m.params.size(), mysql.params.size());
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    ExpectSameValue(m.params[i], mysql.params[i], "param " + std::to_string(i));
  }
  EXPECT_TRUE(std::holds_alternative<double>(m.params[1])) << "42.0 stays a double, not 42";
  EXPECT_EQ(m.columns, mysql.columns);
  ASSERT_EQ(m.rows.size(), 3u);
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    ASSERT_EQ(m.rows[i].size(), mysql.rows[i].size());
    for (std::size_t j = 0; j < m.rows[i].size(); ++j) {
      ExpectSameValue(m.rows[i][j], mysql.rows[i][j],
                      "cell " + std::to_string(i) + "," + std::to_string(j));
    }
  }
  EXPECT_EQ(m.returned_count, 3u);
  EXPECT_TRUE(m.truncated);
  EXPECT_EQ(back.error_code, ToolErrorCode::kToolTimeout);
}

TEST(CanonicalCodec, ADefaultRecordRoundTrips) {
  CanonicalRecord back = RoundTrip(CanonicalRecord{});
  EXPECT_EQ(back.run_id, "");
  EXPECT_TRUE(std::holds_alternative<DocumentsResult>(back.result));
}

TEST(CanonicalCodec, ADamagedValueIsAnErrorNeverACrash) {
  CanonicalRecord record = Envelope(tools::mysql::kQueryMysql);
  MysqlResult mysql;
  mysql.params = {1.5, std::string("p")};
  mysql.columns = {"c"};
  mysql.rows = {{std::int64_t{1}}, {std::string("x")}};
  record.result = mysql;
  std::string bytes = EncodeCanonicalRecord(record);

  for (const std::string& bad :
       {std::string(), std::string("DCR"), std::string("{\"run_id\":\"r\"}"),
        std::string("DCR\x02") + bytes.substr(4), bytes + "x"}) {
    auto decoded = DecodeCanonicalRecord(bad);
    ASSERT_FALSE(decoded);
    EXPECT_EQ(decoded.error().code, ErrorCode::kInternal);
  }
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    EXPECT_FALSE(DecodeCanonicalRecord(bytes.substr(0, size))) << "cut at " << size;
  }
  // Any single damaged byte either still decodes or is refused; none crashes
  // or allocates a length it read.
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(value);
      (void)DecodeCanonicalRecord(damaged);
    }
  }
  std::string huge_count = std::string("DCR\x01") + "\xff\xff\xff\xff\xff\xff\xff\xff\x7f";
  EXPECT_FALSE(DecodeCanonicalRecord(huge_count));
}

}  // namespace
}  // namespace diagd::store
