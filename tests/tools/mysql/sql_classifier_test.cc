#include "tools/mysql/sql_classifier.h"

#include <gtest/gtest.h>

#include <string>

namespace diagd::tools::sql {
namespace {

std::string ReasonFor(std::string_view sql) {
  return RejectionName(ClassifyStatement(sql).rejection);
}

struct ReadOnlyCase {
  const char* name;
  const char* sql;
};

void PrintTo(const ReadOnlyCase& c, std::ostream* os) { *os << c.sql; }

// Statements an SRE agent writes while diagnosing; each must pass.
const ReadOnlyCase kReadOnly[] = {
    {"SelectConstant", "SELECT 1"},
    {"SelectWithPlaceholder", "SELECT id, status FROM orders WHERE id = ?"},
    {"Join",
     "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
     "WHERE o.created_at > NOW() - INTERVAL 1 HOUR"},
    {"LeftJoinGroupByHaving",
     "SELECT c.region, COUNT(*) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id "
     "GROUP BY c.region HAVING COUNT(*) > 10 ORDER BY n DESC LIMIT 20"},
    {"Cte",
     "WITH recent AS (SELECT * FROM orders WHERE created_at > ?) "
     "SELECT status, COUNT(*) FROM recent GROUP BY status"},
    {"RecursiveCte",
     "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) "
     "SELECT x FROM n"},
    {"TwoCtesWithColumnList",
     "WITH a AS (SELECT 1 AS v), b (w) AS NOT MATERIALIZED (SELECT v FROM a) SELECT * FROM b"},
    {"WindowFunction",
     "SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY created_at DESC) AS rn "
     "FROM orders"},
    {"ParenthesizedUnion", "(SELECT 1) UNION (SELECT 2)"},
    {"ShowProcesslist", "SHOW PROCESSLIST"},
    {"ShowFullProcesslist", "show full processlist"},
    {"ShowStatusLike", "SHOW STATUS LIKE 'Threads%'"},
    {"ShowGlobalVariables", "SHOW GLOBAL VARIABLES LIKE 'max_connections'"},
    {"ShowEngineInnodbStatus", "SHOW ENGINE INNODB STATUS"},
    {"ShowCreateTable", "SHOW CREATE TABLE orders"},
    {"ShowCharacterSet", "SHOW CHARACTER SET LIKE 'utf8%'"},
    {"ShowGrantsForCurrentUser", "SHOW GRANTS FOR CURRENT_USER"},
    {"DescribeTable", "DESCRIBE orders"},
    {"DescTable", "DESC orders"},
    {"DescribeQualifiedTableColumn", "DESCRIBE shop.orders status"},
    {"ExplainTable", "EXPLAIN `orders`"},
    {"ExplainSelect", "EXPLAIN SELECT * FROM orders WHERE id = 1"},
    {"ExplainFormatJson", "EXPLAIN FORMAT=JSON SELECT * FROM orders"},
    {"ExplainCte", "EXPLAIN WITH x AS (SELECT 1) SELECT * FROM x"},
    {"SqliteExplainQueryPlan", "EXPLAIN QUERY PLAN SELECT * FROM orders"},
    {"StringHoldingDropAndSemicolon", "SELECT * FROM logs WHERE message = 'DROP TABLE x; --'"},
    {"StringHoldingSleepCall", "SELECT * FROM logs WHERE message LIKE '%SLEEP(10)%'"},
    {"QuotedIdentifiersNamedLikeStatements", "SELECT `delete`, `update`, `into` FROM flags"},
    {"ColumnsContainingKeywords",
     "SELECT updated_at, created_by, deleted, sleep_count FROM orders WHERE deleted = 0"},
    {"ColumnNamedSleepWithoutCall", "SELECT sleep FROM t"},
    {"ChineseStringLiteral", "SELECT * FROM incidents WHERE title LIKE '%订单超时%'"},
    {"ChineseIdentifier", "SELECT 订单号 FROM 订单"},
    {"StringFunctionsNamedLikeStatements",
     "SELECT REPLACE(name, 'a', 'b'), INSERT('abc', 1, 1, 'x'), TRUNCATE(1.25, 1) FROM t"},
    {"CastWithCharacterSet", "SELECT CAST(name AS CHAR CHARACTER SET utf8mb4) FROM t"},
    {"SubstringFromFor", "SELECT SUBSTRING(s FROM 1 FOR 3) FROM t"},
    {"TrailingSemicolonAndComment", "SELECT 1; -- done"},
    {"SemicolonInsideComment", "SELECT 1 -- comment; DROP TABLE t"},
    {"PlainComments", "SELECT /* why */ id FROM t -- trailing\n# mysql style"},
    {"SystemVariables", "SELECT @@max_connections, @@global.wait_timeout"},
    {"UserVariableComparison", "SELECT * FROM t WHERE @limit = 1"},
    {"InformationSchema",
     "SELECT * FROM information_schema.INNODB_TRX WHERE trx_started < NOW() - INTERVAL 5 MINUTE"},
    {"PerformanceSchemaLocks", "SELECT * FROM performance_schema.data_locks"},
    {"DoubledQuote", "SELECT 'it''s'"},
    {"EscapedBackslashAtEnd", R"(SELECT 'C:\\')"},
    {"BinaryLiterals", "SELECT x'0F', b'01', 0x1F"},
    {"JsonPath", "SELECT JSON_EXTRACT(payload, '$.items[0]'), payload->>'$.id' FROM events"},
    {"SqlitePragmaFunction", "SELECT * FROM pragma_table_info('orders')"},
    {"SqliteBracketIdentifier", "SELECT [order id] FROM [order details]"},
    {"GroupByWithRollup", "SELECT status, COUNT(*) FROM orders GROUP BY status WITH ROLLUP"},
    {"DoubleQuotedText", "SELECT * FROM t WHERE note = \"double quoted\""},
};

class SqlClassifierReadOnly : public ::testing::TestWithParam<ReadOnlyCase> {};

TEST_P(SqlClassifierReadOnly, IsAccepted) {
  EXPECT_EQ(ReasonFor(GetParam().sql), "NONE") << GetParam().sql;
}

INSTANTIATE_TEST_SUITE_P(Statements, SqlClassifierReadOnly, ::testing::ValuesIn(kReadOnly),
                         [](const ::testing::TestParamInfo<ReadOnlyCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(SqlClassifier, RejectsDeleteInsideCte) {
  EXPECT_EQ(ReasonFor("WITH gone AS (DELETE FROM orders RETURNING id) SELECT * FROM gone"),
            "NOT_READ_ONLY");
}

TEST(SqlClassifier, RejectsWritingCteMainStatement) {
  EXPECT_EQ(ReasonFor("WITH x AS (SELECT 1) DELETE FROM orders"), "NOT_READ_ONLY");
}

TEST(SqlClassifier, AcceptsStatementKeywordsInsideLiteralsAndQuotedNames) {
  EXPECT_TRUE(ClassifyStatement("SELECT 'DELETE FROM t; DROP TABLE x' AS `drop`").ok());
  EXPECT_TRUE(
      ClassifyStatement("SELECT * FROM t WHERE c = 'INTO OUTFILE' OR d = 'FOR UPDATE'").ok());
}

TEST(SqlClassifier, MatchesKeywordsAsWholeWordsOnly) {
  EXPECT_TRUE(ClassifyStatement("SELECT updated_at, created_by, deleted, dropped FROM t").ok());
  EXPECT_EQ(ReasonFor("SELECT deleted FROM t WHERE x IN (DELETE FROM t)"), "NOT_READ_ONLY");
}

TEST(SqlClassifier, RejectsKeywordsHiddenByCaseOrComments) {
  EXPECT_EQ(ReasonFor("sElEcT * fRoM t FoR uPdAtE"), "LOCKING_READ");
  EXPECT_EQ(ReasonFor("SELECT * FROM t FOR/**/UPDATE"), "LOCKING_READ");
  EXPECT_EQ(ReasonFor("SELECT BeNcHmArK/* x */\n(1, 1)"), "FORBIDDEN_FUNCTION");
}

TEST(SqlClassifier, AllowsOneTrailingSemicolonOnly) {
  EXPECT_TRUE(ClassifyStatement("SELECT 1;").ok());
  EXPECT_TRUE(ClassifyStatement("SELECT 1 ; /* end */ \n").ok());
  EXPECT_EQ(ReasonFor("SELECT 1; ;"), "MULTIPLE_STATEMENTS");
  EXPECT_EQ(ReasonFor("SELECT 1; SELECT 2"), "MULTIPLE_STATEMENTS");
}

TEST(SqlClassifier, ReportsTheFirstOffenceInTextOrder) {
  EXPECT_EQ(ReasonFor("SELECT SLEEP(1) FROM t FOR UPDATE"), "FORBIDDEN_FUNCTION");
  EXPECT_EQ(ReasonFor("SELECT * FROM t FOR UPDATE INTO OUTFILE '/tmp/x'"), "LOCKING_READ");
  EXPECT_EQ(ReasonFor("SELECT 1 INTO OUTFILE '/tmp/x' FROM t FOR UPDATE"), "INTO_OUTFILE");
}

TEST(SqlClassifier, RejectsExplainOfAnythingButAQueryOrATable) {
  EXPECT_TRUE(ClassifyStatement("EXPLAIN SELECT 1").ok());
  EXPECT_TRUE(ClassifyStatement("EXPLAIN orders").ok());
  EXPECT_EQ(ReasonFor("EXPLAIN ANALYZE SELECT 1"), "NOT_READ_ONLY");
  EXPECT_EQ(ReasonFor("EXPLAIN INSERT INTO t VALUES (1)"), "NOT_READ_ONLY");
  EXPECT_EQ(ReasonFor("EXPLAIN orders id extra"), "NOT_READ_ONLY");
  EXPECT_EQ(ReasonFor("EXPLAIN"), "NOT_READ_ONLY");
}

TEST(SqlClassifier, CountsPlaceholdersOutsideLiteralsAndComments) {
  EXPECT_EQ(ClassifyStatement("SELECT 1").placeholder_count, 0);
  EXPECT_EQ(ClassifyStatement("SELECT ?;").placeholder_count, 1);
  EXPECT_EQ(ClassifyStatement("SELECT * FROM t WHERE a = ? AND b IN (?, ?) AND c = '?' "
                              "AND `?` = \"?\" -- ?\n/* ? */ AND d LIKE '%?%'")
                .placeholder_count,
            3);
}

TEST(SqlClassifier, RejectsTextLongerThanMaxBytes) {
  std::string sql = "SELECT 1" + std::string(92, ' ');
  ASSERT_EQ(sql.size(), 100u);
  EXPECT_TRUE(ClassifyStatement(sql, 100).ok());
  EXPECT_EQ(RejectionName(ClassifyStatement(sql, 99).rejection), std::string("TOO_LONG"));
  EXPECT_EQ(ReasonFor("SELECT '" + std::string(10000, 'x') + "'"), "TOO_LONG");
}

TEST(SqlClassifier, NamesEveryRejection) {
  EXPECT_STREQ(RejectionName(Rejection::kEmpty), "EMPTY");
  EXPECT_STREQ(RejectionName(Rejection::kMultipleStatements), "MULTIPLE_STATEMENTS");
  EXPECT_STREQ(RejectionName(Rejection::kNotReadOnly), "NOT_READ_ONLY");
  EXPECT_STREQ(RejectionName(Rejection::kForbiddenFunction), "FORBIDDEN_FUNCTION");
  EXPECT_STREQ(RejectionName(Rejection::kLockingRead), "LOCKING_READ");
  EXPECT_STREQ(RejectionName(Rejection::kIntoOutfile), "INTO_OUTFILE");
  EXPECT_STREQ(RejectionName(Rejection::kExecutableComment), "EXECUTABLE_COMMENT");
  EXPECT_STREQ(RejectionName(Rejection::kUnterminated), "UNTERMINATED");
  EXPECT_STREQ(RejectionName(Rejection::kTooLong), "TOO_LONG");
}

TEST(SqlClassifier, OkOnlyWithoutRejection) {
  EXPECT_TRUE(Classification{}.ok());
  EXPECT_FALSE(Classification{Rejection::kEmpty}.ok());
}

}  // namespace
}  // namespace diagd::tools::sql
