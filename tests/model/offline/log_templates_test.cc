#include "model/offline/log_templates.h"

#include <gtest/gtest.h>

namespace diagd::model::offline {
namespace {

const char* const kPoolError =
    "payment-service-7c9d6b8f5-p9r4t [http-nio-8080-exec-168] c.s.pay.web.GlobalExceptionHandler - "
    "POST /internal/v1/payments 处理失败，返回 500 PAY_DB_UNAVAILABLE orderId=202611291029541396 "
    "traceId=a003ec45c735ee5f8209f92379ed4fdd cost=5004ms: "
    "java.sql.SQLTransientConnectionException: "
    "HikariPool-1 - Connection is not available, request timed out after 5000ms.\n"
    "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection\n"
    "\tat "
    "org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)";

const char* const kSlowQuery =
    "slow query: Query_time: 78.703956 Lock_time: 0.000105 Rows_sent: 4 Rows_examined: 18756038 "
    "user=pay_app host=10.12.4.22 conn_id=1885640 db=payment sql=\"SELECT id, order_id FROM "
    "payment_record WHERE user_id = 1426141 AND created_at >= '2026-08-31 10:28:39' ORDER BY "
    "created_at "
    "DESC LIMIT 20\"";

TEST(TemplateOf, MasksIdsNumbersHashesAndPodNames) {
  std::string other =
      "payment-service-7c9d6b8f5-k2x8m [http-nio-8080-exec-3] c.s.pay.web.GlobalExceptionHandler - "
      "POST /internal/v1/payments 处理失败，返回 500 PAY_DB_UNAVAILABLE orderId=202611291011110001 "
      "traceId=0e53f82946bc4b250a77b2aa5935385e cost=5001ms: "
      "java.sql.SQLTransientConnectionException: "
      "HikariPool-1 - Connection is not available, request timed out after 5000ms.";
  EXPECT_EQ(TemplateOf(kPoolError), TemplateOf(other));
  EXPECT_EQ(TemplateOf(kPoolError).find("202611291029541396"), std::string::npos);
  EXPECT_EQ(TemplateOf(kPoolError).find("\n"), std::string::npos) << "only the first line counts";
}

TEST(TemplateOf, KeepsHttpStatusesApartWhereAStatusIsWritten) {
  std::string five_hundred = "100.64.7.78 \"POST /api/v1/orders HTTP/1.1\" 500 126 rt=5.051";
  std::string gateway_timeout = "100.64.2.1 \"POST /api/v1/orders HTTP/1.1\" 504 160 rt=15.002";
  std::string other_bytes = "100.64.9.9 \"POST /api/v1/orders HTTP/1.1\" 504 171 rt=15.001";
  EXPECT_NE(TemplateOf(five_hundred), TemplateOf(gateway_timeout));
  EXPECT_EQ(TemplateOf(gateway_timeout), TemplateOf(other_bytes));
}

TEST(GroupByTemplate, PutsTheMostFrequentFirstThenErrorsBeforeWarnings) {
  std::vector<std::string> messages = {"slow sql cost=12ms", "pool empty id=1",
                                       "slow sql cost=99ms", "disk warning 1",
                                       "pool empty id=2",    "pool empty id=3"};
  std::vector<std::string> levels = {"WARN", "ERROR", "WARN", "WARN", "ERROR", "ERROR"};
  auto groups = GroupByTemplate(messages, levels);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].members, (std::vector<std::size_t>{1, 4, 5}));
  EXPECT_EQ(groups[1].members, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(groups[2].key, "disk warning #");
}

TEST(ReadMessage, FindsTheLeadAndTheExceptionTextAsExactSubstrings) {
  MessageReading reading = ReadMessage(kPoolError);
  EXPECT_EQ(reading.lead, "POST /internal/v1/payments 处理失败，返回 500 PAY_DB_UNAVAILABLE");
  ASSERT_FALSE(reading.exceptions.empty());
  EXPECT_EQ(reading.exceptions.front(),
            "HikariPool-1 - Connection is not available, request timed out after 5000ms.");
  EXPECT_TRUE(reading.pool_exhausted);
  EXPECT_TRUE(reading.server_error);
  for (const auto& phrase : reading.exceptions) {
    EXPECT_NE(std::string(kPoolError).find(phrase), std::string::npos) << phrase;
  }
}

TEST(ReadMessage, RecognisesAFullTableScanInAMysqlSlowLog) {
  MessageReading reading = ReadMessage(kSlowQuery);
  EXPECT_TRUE(reading.full_scan);
  EXPECT_TRUE(reading.slow);
  EXPECT_EQ(reading.table, "payment_record");
  EXPECT_EQ(reading.column, "user_id");
  EXPECT_EQ(reading.second_column, "created_at");
  EXPECT_EQ(reading.sql_fragment, "FROM payment_record WHERE user_id");
  EXPECT_EQ(reading.rows_examined_phrase, "Rows_examined: 18756038");
  EXPECT_EQ(reading.rows_sent, 4);
  EXPECT_EQ(reading.query_time, "78.703956");
}

TEST(ReadMessage, AnIndexedQueryIsNoFullScan) {
  MessageReading reading = ReadMessage(
      "slow query: Query_time: 1.48 Lock_time: 0.0001 Rows_sent: 9 Rows_examined: 51234 "
      "sql=\"SELECT "
      "channel FROM payment_record WHERE created_at >= ...\"");
  EXPECT_FALSE(reading.full_scan);
  EXPECT_EQ(reading.column, "created_at");
}

TEST(BestPhrase, PrefersTheExceptionTextThenTheLead) {
  EXPECT_EQ(BestPhrase(kPoolError),
            "HikariPool-1 - Connection is not available, request timed out after 5000ms.");
  EXPECT_EQ(
      BestPhrase("order-service-1 [main] c.s.Order - 下单支付失败，订单置为 FAILED orderId=1"),
      "下单支付失败，订单置为 FAILED");
  std::string gateway = "*8854636 upstream timed out (110: Connection timed out) while reading";
  EXPECT_NE(gateway.find(BestPhrase(gateway)), std::string::npos);
  EXPECT_EQ(BestPhrase(gateway).rfind("upstream timed out", 0), 0u)
      << "leading numbers are no words";
}

}  // namespace
}  // namespace diagd::model::offline
