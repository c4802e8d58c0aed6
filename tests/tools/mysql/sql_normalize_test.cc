#include "tools/mysql/sql_normalize.h"

#include <gtest/gtest.h>

namespace diagd::tools::sql {
namespace {

TEST(SqlNormalize, EqualsForWhitespaceKeywordCaseAndTrailingSemicolon) {
  EXPECT_EQ(NormalizeForScope("select *  from t where id=?;"),
            NormalizeForScope("SELECT * FROM t WHERE id=?"));
  EXPECT_EQ(NormalizeForScope("SELECT * FROM t WHERE id=?"), "SELECT * FROM t WHERE id=?");
}

TEST(SqlNormalize, CollapsesNewlinesAndTabsAndTrimsEnds) {
  EXPECT_EQ(NormalizeForScope("\n\tselect\n  id,\tname\r\n from   orders  \n"),
            "SELECT id, name FROM orders");
}

TEST(SqlNormalize, RemovesCommentsAsSeparators) {
  EXPECT_EQ(NormalizeForScope("SELECT /* why */ id -- note\nFROM t # more\n"), "SELECT id FROM t");
  EXPECT_EQ(NormalizeForScope("SELECT a/**/b FROM t"), "SELECT a b FROM t");
}

TEST(SqlNormalize, DropsEveryTrailingSemicolon) {
  EXPECT_EQ(NormalizeForScope("SELECT 1 ; ; -- end"), "SELECT 1");
}

TEST(SqlNormalize, DiffersWhenALiteralsCaseDiffers) {
  EXPECT_NE(NormalizeForScope("SELECT * FROM t WHERE s = 'ABC'"),
            NormalizeForScope("SELECT * FROM t WHERE s = 'abc'"));
}

TEST(SqlNormalize, DiffersWhenALiteralsContentDiffers) {
  EXPECT_NE(NormalizeForScope("SELECT * FROM t WHERE s = 'abc'"),
            NormalizeForScope("SELECT * FROM t WHERE s = 'abd'"));
  EXPECT_NE(NormalizeForScope("SELECT * FROM t WHERE s = 'a  b'"),
            NormalizeForScope("SELECT * FROM t WHERE s = 'a b'"));
}

TEST(SqlNormalize, DiffersWhenAnIdentifierDiffers) {
  EXPECT_NE(NormalizeForScope("SELECT * FROM orders"), NormalizeForScope("SELECT * FROM refunds"));
  EXPECT_NE(NormalizeForScope("SELECT * FROM orders"), NormalizeForScope("SELECT * FROM Orders"));
}

TEST(SqlNormalize, KeepsQuotedIdentifiersAndLiteralsVerbatim) {
  EXPECT_EQ(NormalizeForScope("select `select`, \"from\", [where], 'and  or' from t"),
            "SELECT `select`, \"from\", [where], 'and  or' FROM t");
}

TEST(SqlNormalize, KeepsPlaceholdersAndNumbers) {
  EXPECT_EQ(NormalizeForScope("select * from t where a in (?, ?) limit 0x1F"),
            "SELECT * FROM t WHERE a IN (?, ?) LIMIT 0x1F");
}

TEST(SqlNormalize, FoldsFunctionNamesButNotColumns) {
  EXPECT_EQ(NormalizeForScope("select count(*), now(), created_at from t"),
            "SELECT COUNT(*), NOW(), created_at FROM t");
}

TEST(SqlNormalize, KeepsChineseTextUntouched) {
  EXPECT_EQ(NormalizeForScope("select * from incidents where title like '%订单超时%'"),
            "SELECT * FROM incidents WHERE title LIKE '%订单超时%'");
}

TEST(SqlNormalize, KeepsExecutableCommentsBecauseTheyAreCode) {
  EXPECT_NE(NormalizeForScope("SELECT 1 /*!50000 , SLEEP(1) */"), NormalizeForScope("SELECT 1"));
}

TEST(SqlNormalize, IsTotalOnUnterminatedText) {
  EXPECT_EQ(NormalizeForScope("select 'abc"), "SELECT 'abc");
  EXPECT_EQ(NormalizeForScope(""), "");
  EXPECT_EQ(NormalizeForScope("  -- only a comment"), "");
}

}  // namespace
}  // namespace diagd::tools::sql
