// The hostile suite: statements an agent (or text it read) could send to get
// past the read-only gate. Each must be refused, with the stated reason.
#include <gtest/gtest.h>

#include <string>

#include "tools/mysql/sql_classifier.h"

namespace diagd::tools::sql {
namespace {

struct HostileCase {
  const char* name;
  const char* sql;
  Rejection expected;
};

void PrintTo(const HostileCase& c, std::ostream* os) { *os << c.sql; }

constexpr Rejection kNotReadOnly = Rejection::kNotReadOnly;
constexpr Rejection kMultiple = Rejection::kMultipleStatements;
constexpr Rejection kFunction = Rejection::kForbiddenFunction;
constexpr Rejection kLocking = Rejection::kLockingRead;
constexpr Rejection kInto = Rejection::kIntoOutfile;
constexpr Rejection kExecutable = Rejection::kExecutableComment;
constexpr Rejection kUnterminated = Rejection::kUnterminated;
constexpr Rejection kEmpty = Rejection::kEmpty;

const HostileCase kHostile[] = {
    // Statements that write, change schema, session or server.
    {"Insert", "INSERT INTO t VALUES (1)", kNotReadOnly},
    {"Update", "UPDATE t SET a = 1", kNotReadOnly},
    {"Delete", "DELETE FROM t", kNotReadOnly},
    {"ReplaceInto", "REPLACE INTO t VALUES (1)", kNotReadOnly},
    {"CreateTable", "CREATE TABLE x (a INT)", kNotReadOnly},
    {"AlterTable", "ALTER TABLE t ADD c INT", kNotReadOnly},
    {"DropTable", "DROP TABLE t", kNotReadOnly},
    {"Truncate", "TRUNCATE TABLE t", kNotReadOnly},
    {"Rename", "RENAME TABLE a TO b", kNotReadOnly},
    {"Grant", "GRANT ALL ON *.* TO 'x'@'%'", kNotReadOnly},
    {"Revoke", "REVOKE SELECT ON t FROM u", kNotReadOnly},
    {"SetVariable", "SET GLOBAL max_connections = 1", kNotReadOnly},
    {"Call", "CALL cleanup()", kNotReadOnly},
    {"DoSleep", "DO SLEEP(10)", kNotReadOnly},
    {"Handler", "HANDLER t OPEN", kNotReadOnly},
    {"LoadData", "LOAD DATA INFILE '/etc/passwd' INTO TABLE t", kNotReadOnly},
    {"LockTables", "LOCK TABLES t WRITE", kNotReadOnly},
    {"Unlock", "UNLOCK TABLES", kNotReadOnly},
    {"Use", "USE mysql", kNotReadOnly},
    {"Prepare", "PREPARE s FROM 'DROP TABLE t'", kNotReadOnly},
    {"Execute", "EXECUTE s", kNotReadOnly},
    {"Begin", "BEGIN", kNotReadOnly},
    {"Commit", "COMMIT", kNotReadOnly},
    {"Attach", "ATTACH DATABASE '/tmp/x.db' AS x", kNotReadOnly},
    {"Pragma", "PRAGMA writable_schema = ON", kNotReadOnly},
    {"Vacuum", "VACUUM INTO '/tmp/copy.db'", kNotReadOnly},
    {"Analyze", "ANALYZE TABLE t", kNotReadOnly},
    {"Flush", "FLUSH PRIVILEGES", kNotReadOnly},
    {"Kill", "KILL 42", kNotReadOnly},
    {"InstallPlugin", "INSTALL PLUGIN x SONAME 'x.so'", kNotReadOnly},
    {"ValuesStatement", "VALUES (1)", kNotReadOnly},
    // Case and spelling tricks.
    {"MixedCaseDrop", "dRoP tAbLe t", kNotReadOnly},
    {"CommentSplitsSelect", "SEL/**/ECT * FROM t", kNotReadOnly},
    {"LeadingCommentThenDelete", "/* SELECT */ DELETE FROM t", kNotReadOnly},
    {"LineCommentThenDelete", "-- SELECT\nDELETE FROM t", kNotReadOnly},
    {"ParenthesizedDelete", "(DELETE FROM t)", kNotReadOnly},
    // Nested writes.
    {"DeleteInsideCte", "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", kNotReadOnly},
    {"UpdateAsCteMain", "WITH x AS (SELECT 1) UPDATE t SET a = 1", kNotReadOnly},
    {"InsertAsCteMain", "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", kNotReadOnly},
    {"InsertInSubquery", "SELECT * FROM (INSERT INTO t VALUES (1)) x", kNotReadOnly},
    {"DropInScalarSubquery", "SELECT (DROP TABLE t)", kNotReadOnly},
    {"CteNamedLikeAStatement", "WITH delete AS (SELECT 1) SELECT 1", kNotReadOnly},
    {"ExplainAnalyze", "EXPLAIN ANALYZE SELECT * FROM t", kNotReadOnly},
    {"DescribeAnalyze", "DESCRIBE ANALYZE SELECT * FROM t", kNotReadOnly},
    {"ExplainDelete", "EXPLAIN DELETE FROM t", kNotReadOnly},
    {"ExplainUpdate", "EXPLAIN FORMAT=JSON UPDATE t SET a = 1", kNotReadOnly},
    {"ExplainForConnection", "EXPLAIN FOR CONNECTION 12", kNotReadOnly},
    {"ShowThenAnalyze", "SHOW ANALYZE FOR 12", kNotReadOnly},
    {"UserVariableAssignment", "SELECT @a := 1", kNotReadOnly},
    {"AssignmentWithSpace", "SELECT @a : = 1", kNotReadOnly},
    {"NulByte", "SELECT 1\0; DROP TABLE t", kNotReadOnly},
    {"InvalidUtf8", "SELECT '\xbf\x27' FROM t", kNotReadOnly},
    // Stacked statements.
    {"StackedDrop", "SELECT 1; DROP TABLE x", kMultiple},
    {"StackedDropNoSpace", "SELECT 1;DROP TABLE x;", kMultiple},
    {"StackedSelect", "SELECT 1; SELECT 2", kMultiple},
    {"DoubleSemicolon", "SELECT 1;;", kMultiple},
    {"StackedAfterComment", "SELECT 1; /* x */ DELETE FROM t", kMultiple},
    {"BackslashHidesSemicolonForSqlite", R"(SELECT 'a\'; DROP TABLE t; -- ')", kMultiple},
    {"DoubleQuoteBackslashHidesSemicolon", R"(SELECT "a\"; DROP TABLE t; -- ")", kMultiple},
    {"DashDashWithoutSpaceIsCodeInMySql", "SELECT 1 --x; DROP TABLE t", kMultiple},
    {"HashCommentThenStackedDrop", "SELECT 1 # x\n; DROP TABLE t", kMultiple},
    // Executable comments and hints.
    {"VersionedDrop", "/*!50000 DROP TABLE x*/", kExecutable},
    {"VersionedInsideSelect", "SELECT 1 /*!50000 , SLEEP(10) */", kExecutable},
    {"VersionlessExecutable", "SELECT /*! SLEEP(10) */ 1", kExecutable},
    {"MariaDbExecutable", "SELECT 1 /*M!100100 , SLEEP(10) */", kExecutable},
    {"OptimizerHintSetVar", "SELECT /*+ SET_VAR(max_execution_time=0) */ * FROM t", kExecutable},
    {"UnterminatedExecutable", "SELECT 1 /*!50000 DROP TABLE t", kExecutable},
    // Forbidden functions.
    {"Sleep", "SELECT SLEEP(10)", kFunction},
    {"SleepSpaceBeforeParen", "SELECT SLEEP (10)", kFunction},
    {"SleepCommentBeforeParen", "SELECT sleep/**/(10)", kFunction},
    {"SleepNewlineBeforeParen", "SELECT sleep\n(10)", kFunction},
    {"SleepInWhere", "SELECT * FROM t WHERE id = 1 AND sLeEp(5) = 0", kFunction},
    {"SleepBacktickQuoted", "SELECT `sleep`(10)", kFunction},
    {"Benchmark", "SELECT BENCHMARK(1e9, MD5(1))", kFunction},
    {"LoadFile", "SELECT LOAD_FILE('/etc/passwd')", kFunction},
    {"GetLock", "SELECT GET_LOCK('x', 10)", kFunction},
    {"ReleaseLock", "SELECT RELEASE_LOCK('x')", kFunction},
    {"ReleaseAllLocks", "SELECT RELEASE_ALL_LOCKS()", kFunction},
    {"IsFreeLock", "SELECT IS_FREE_LOCK('x')", kFunction},
    {"MasterPosWait", "SELECT MASTER_POS_WAIT('bin.1', 4)", kFunction},
    {"SourcePosWait", "SELECT SOURCE_POS_WAIT('bin.1', 4)", kFunction},
    {"SysExec", "SELECT sys_exec('rm -rf /')", kFunction},
    {"SysEval", "SELECT SYS_EVAL('id')", kFunction},
    {"LoadExtension", "SELECT load_extension('/tmp/evil.so')", kFunction},
    {"LoadExtensionDoubleQuoted", "SELECT \"load_extension\"('/tmp/evil.so')", kFunction},
    {"LoadExtensionBracketed", "SELECT [load_extension]('/tmp/evil.so')", kFunction},
    {"Readfile", "SELECT readfile('/etc/passwd')", kFunction},
    {"Writefile", "SELECT writefile('/tmp/x', 'y')", kFunction},
    {"Edit", "SELECT edit('x')", kFunction},
    {"Fts3Tokenizer", "SELECT fts3_tokenizer('simple')", kFunction},
    {"QualifiedSleep", "SELECT mysql.sleep(1)", kFunction},
    {"NextValueFor", "SELECT NEXT VALUE FOR seq", kFunction},
    {"Nextval", "SELECT NEXTVAL(seq)", kFunction},
    {"SleepAfterHashThatSqliteReadsAsCode", "SELECT 1 #, SLEEP(9)", kFunction},
    {"SleepHiddenFromDefaultMySqlByBackslash", R"(SELECT 'a\' --x, SLEEP(9) -- ')", kFunction},
    // Locking reads.
    {"ForUpdate", "SELECT * FROM t FOR UPDATE", kLocking},
    {"ForUpdateLowerCase", "select * from t for update nowait", kLocking},
    {"ForShare", "SELECT * FROM t FOR SHARE", kLocking},
    {"LockInShareMode", "SELECT * FROM t LOCK IN SHARE MODE", kLocking},
    {"ForUpdateInSubquery", "SELECT * FROM (SELECT * FROM t FOR UPDATE) x", kLocking},
    {"ExplainForUpdate", "EXPLAIN SELECT * FROM t FOR UPDATE", kLocking},
    // Writing files and variables.
    {"IntoOutfile", "SELECT * FROM t INTO OUTFILE '/tmp/x'", kInto},
    {"IntoDumpfile", "SELECT 0x3c3f INTO DUMPFILE '/var/www/x.php'", kInto},
    {"IntoVariable", "SELECT id INTO @v FROM t LIMIT 1", kInto},
    {"IntoOutfileAfterComment", "SELECT 1 /* harmless */ INTO /* really */ OUTFILE '/tmp/x'",
     kInto},
    // Unterminated text.
    {"UnterminatedString", "SELECT 'abc", kUnterminated},
    {"UnterminatedDoubleQuote", "SELECT \"abc", kUnterminated},
    {"UnterminatedBacktick", "SELECT `abc FROM t", kUnterminated},
    {"UnterminatedComment", "SELECT 1 /* open", kUnterminated},
    {"EscapedClosingQuote", R"(SELECT 'abc\')", kUnterminated},
    {"BackslashQuoteReadsDifferently", R"(SELECT 'it\'s')", kUnterminated},
    {"UnterminatedBracketForSqlite", "SELECT [abc FROM t", kUnterminated},
    // Nothing to run.
    {"Empty", "", kEmpty},
    {"OnlyWhitespace", " \n\t ", kEmpty},
    {"OnlyComments", "/* a */ -- b\n# c", kEmpty},
    {"OnlySemicolon", " ; ", kEmpty},
};

class SqlClassifierHostile : public ::testing::TestWithParam<HostileCase> {};

TEST_P(SqlClassifierHostile, IsRefusedWithItsReason) {
  const HostileCase& c = GetParam();
  // The NUL case needs its real length; every other literal stops at its end.
  std::string_view sql = c.sql;
  if (std::string_view(c.name) == "NulByte") sql = std::string_view("SELECT 1\0; DROP TABLE t", 24);
  Classification result = ClassifyStatement(sql);
  EXPECT_EQ(RejectionName(result.rejection), std::string(RejectionName(c.expected))) << c.sql;
}

INSTANTIATE_TEST_SUITE_P(Statements, SqlClassifierHostile, ::testing::ValuesIn(kHostile),
                         [](const ::testing::TestParamInfo<HostileCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(SqlClassifierHostileSuite, HasAtLeastSixtyStatements) { EXPECT_GE(std::size(kHostile), 60u); }

}  // namespace
}  // namespace diagd::tools::sql
