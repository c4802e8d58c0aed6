#include "tools/mysql/sql_lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace diagd::tools::sql {
namespace {

using ::testing::ElementsAre;

struct Lexed {
  TokenKind kind;
  std::string text;
  bool operator==(const Lexed&) const = default;
};

void PrintTo(const Lexed& lexed, std::ostream* os) {
  *os << static_cast<int>(lexed.kind) << ":" << lexed.text;
}

std::vector<Lexed> Tokens(std::string_view sql, const LexOptions& options = LexOptions::MySql()) {
  std::vector<Lexed> out;
  for (const Token& token : Lex(sql, options).tokens) {
    out.push_back({token.kind, std::string(token.text)});
  }
  return out;
}

TEST(SqlLexer, CutsASelectIntoWordsOperatorsAndPlaceholders) {
  EXPECT_THAT(Tokens("SELECT a.b,1.5e3 FROM t WHERE id>=?;"),
              ElementsAre(Lexed{TokenKind::kWord, "SELECT"}, Lexed{TokenKind::kWord, "a"},
                          Lexed{TokenKind::kOperator, "."}, Lexed{TokenKind::kWord, "b"},
                          Lexed{TokenKind::kOperator, ","}, Lexed{TokenKind::kNumber, "1.5e3"},
                          Lexed{TokenKind::kWord, "FROM"}, Lexed{TokenKind::kWord, "t"},
                          Lexed{TokenKind::kWord, "WHERE"}, Lexed{TokenKind::kWord, "id"},
                          Lexed{TokenKind::kOperator, ">="}, Lexed{TokenKind::kPlaceholder, "?"},
                          Lexed{TokenKind::kSemicolon, ";"}));
}

TEST(SqlLexer, KeepsWordsWithUnderscoresAndNonAsciiWhole) {
  EXPECT_THAT(Tokens("updated_at 订单 $x"),
              ElementsAre(Lexed{TokenKind::kWord, "updated_at"}, Lexed{TokenKind::kWord, "订单"},
                          Lexed{TokenKind::kWord, "$x"}));
}

TEST(SqlLexer, ReadsBackslashEscapesOnlyWhenTheDialectHasThem) {
  EXPECT_THAT(Tokens(R"('a\'c')"), ElementsAre(Lexed{TokenKind::kString, R"('a\'c')"}));
  EXPECT_THAT(Tokens(R"('a\'c')", LexOptions::Sqlite()),
              ElementsAre(Lexed{TokenKind::kString, R"('a\')"}, Lexed{TokenKind::kWord, "c"},
                          Lexed{TokenKind::kString, "'"}));
  EXPECT_TRUE(Lex(R"('a\'c')", LexOptions::Sqlite()).unterminated);
}

TEST(SqlLexer, ReadsDoubledQuotesAsPartOfTheLiteral) {
  EXPECT_THAT(Tokens("'it''s' `a``b`"), ElementsAre(Lexed{TokenKind::kString, "'it''s'"},
                                                    Lexed{TokenKind::kQuotedIdentifier, "`a``b`"}));
}

TEST(SqlLexer, ReadsDoubleQuotesAsStringOrIdentifierByDialect) {
  EXPECT_THAT(Tokens(R"("x")"), ElementsAre(Lexed{TokenKind::kString, R"("x")"}));
  EXPECT_THAT(Tokens(R"("x")", LexOptions::MySql(/*ansi_quotes=*/true)),
              ElementsAre(Lexed{TokenKind::kQuotedIdentifier, R"("x")"}));
}

TEST(SqlLexer, ReadsBracketsAsIdentifiersOnlyForSqlite) {
  EXPECT_THAT(Tokens("[a b]", LexOptions::Sqlite()),
              ElementsAre(Lexed{TokenKind::kQuotedIdentifier, "[a b]"}));
  EXPECT_THAT(Tokens("[a]"),
              ElementsAre(Lexed{TokenKind::kOperator, "["}, Lexed{TokenKind::kWord, "a"},
                          Lexed{TokenKind::kOperator, "]"}));
}

TEST(SqlLexer, ReadsHexAndBitLiteralsWithoutEscapes) {
  EXPECT_THAT(Tokens(R"(X'0F' b'01' x'\')"),
              ElementsAre(Lexed{TokenKind::kBinaryLiteral, "X'0F'"},
                          Lexed{TokenKind::kBinaryLiteral, "b'01'"},
                          Lexed{TokenKind::kBinaryLiteral, R"(x'\')"}));
}

TEST(SqlLexer, NeedsASpaceAfterDashDashInMySqlButNotInSqlite) {
  EXPECT_THAT(Tokens("1--1"),
              ElementsAre(Lexed{TokenKind::kNumber, "1"}, Lexed{TokenKind::kOperator, "-"},
                          Lexed{TokenKind::kOperator, "-"}, Lexed{TokenKind::kNumber, "1"}));
  EXPECT_THAT(Tokens("1--1", LexOptions::Sqlite()),
              ElementsAre(Lexed{TokenKind::kNumber, "1"}, Lexed{TokenKind::kComment, "--1"}));
  EXPECT_THAT(Tokens("1 -- c\n2"),
              ElementsAre(Lexed{TokenKind::kNumber, "1"}, Lexed{TokenKind::kComment, "-- c"},
                          Lexed{TokenKind::kNumber, "2"}));
}

TEST(SqlLexer, ReadsHashCommentsOnlyInMySql) {
  EXPECT_THAT(Tokens("1 # c\n2"),
              ElementsAre(Lexed{TokenKind::kNumber, "1"}, Lexed{TokenKind::kComment, "# c"},
                          Lexed{TokenKind::kNumber, "2"}));
  EXPECT_EQ(Tokens("1 # c", LexOptions::Sqlite()).size(), 3u);
}

TEST(SqlLexer, TellsPlainExecutableAndHintCommentsApart) {
  EXPECT_THAT(Tokens("/* a */ /*!50000 b*/ /*M!100000 c*/ /*+ BKA(t) */"),
              ElementsAre(Lexed{TokenKind::kComment, "/* a */"},
                          Lexed{TokenKind::kExecutableComment, "/*!50000 b*/"},
                          Lexed{TokenKind::kExecutableComment, "/*M!100000 c*/"},
                          Lexed{TokenKind::kOptimizerHint, "/*+ BKA(t) */"}));
}

TEST(SqlLexer, MarksTheTokenTheTextEndsInside) {
  for (std::string_view sql : {"SELECT 'abc", "SELECT `abc", "SELECT /* abc", "SELECT \"abc",
                               "SELECT X'0F", R"(SELECT 'abc\')"}) {
    LexResult lexed = Lex(sql, LexOptions::MySql());
    EXPECT_TRUE(lexed.unterminated) << sql;
    EXPECT_EQ(lexed.tokens.back().offset, 7u) << sql;
  }
  EXPECT_FALSE(Lex("SELECT 1 -- open line comment", LexOptions::MySql()).unterminated);
}

TEST(SqlLexer, SplitsLettersOffTheEndOfANumber) {
  EXPECT_THAT(Tokens("1FOR 0x1F"),
              ElementsAre(Lexed{TokenKind::kNumber, "1"}, Lexed{TokenKind::kWord, "FOR"},
                          Lexed{TokenKind::kNumber, "0x1F"}));
}

TEST(SqlLexer, KeepsAssignmentAsOneOperator) {
  EXPECT_THAT(Tokens("@a:=1"),
              ElementsAre(Lexed{TokenKind::kOperator, "@"}, Lexed{TokenKind::kWord, "a"},
                          Lexed{TokenKind::kOperator, ":="}, Lexed{TokenKind::kNumber, "1"}));
}

TEST(SqlLexer, UnquotesIdentifierNames) {
  LexResult lexed = Lex("`a``b` [c d] plain", LexOptions::Sqlite());
  ASSERT_EQ(lexed.tokens.size(), 3u);
  EXPECT_EQ(IdentifierName(lexed.tokens[0]), "a`b");
  EXPECT_EQ(IdentifierName(lexed.tokens[1]), "c d");
  EXPECT_EQ(IdentifierName(lexed.tokens[2]), "plain");
}

}  // namespace
}  // namespace diagd::tools::sql
