#include "tools/mysql/sql_keywords.h"

#include <unordered_set>

namespace diagd::tools::sql {
namespace {

using WordSet = std::unordered_set<std::string_view>;

// Statement words that never occur in a read-only statement, other than the
// function forms and SHOW CREATE the classifier lets through. Words that are
// common column names (START, BEGIN, HANDLER, RESET, DO, CHANGE) are left to
// the first-keyword rule instead: they cannot start a nested statement in
// MySQL or SQLite.
const WordSet& WritingWords() {
  static const WordSet words = {
      "INSERT",    "UPDATE",   "DELETE",     "REPLACE",  "UPSERT", "MERGE",
      "CREATE",    "ALTER",    "DROP",       "TRUNCATE", "RENAME", "GRANT",
      "REVOKE",    "ATTACH",   "DETACH",     "PRAGMA",   "VACUUM", "REINDEX",
      "ANALYZE",   "LOAD",     "CALL",       "SET",      "LOCK",   "UNLOCK",
      "PREPARE",   "EXECUTE",  "DEALLOCATE", "FLUSH",    "KILL",   "INSTALL",
      "UNINSTALL", "SHUTDOWN", "PURGE",      "OPTIMIZE", "REPAIR", "RETURNING",
  };
  return words;
}

const WordSet& ReservedWords() {
  static const WordSet words = {
      "SELECT",   "FROM",   "WHERE",   "GROUP",     "ORDER",         "BY",        "HAVING",
      "LIMIT",    "OFFSET", "UNION",   "INTERSECT", "EXCEPT",        "INTO",      "FOR",
      "WITH",     "AS",     "ON",      "USING",     "JOIN",          "INNER",     "OUTER",
      "LEFT",     "RIGHT",  "CROSS",   "NATURAL",   "STRAIGHT_JOIN", "AND",       "OR",
      "NOT",      "XOR",    "IN",      "IS",        "NULL",          "LIKE",      "BETWEEN",
      "EXISTS",   "CASE",   "WHEN",    "THEN",      "ELSE",          "END",       "DISTINCT",
      "ALL",      "ANY",    "TABLE",   "VALUES",    "EXPLAIN",       "DESCRIBE",  "DESC",
      "ASC",      "SHOW",   "WINDOW",  "OVER",      "PARTITION",     "RECURSIVE", "OUTFILE",
      "DUMPFILE", "DUAL",   "TRUE",    "FALSE",     "INTERVAL",      "DIV",       "MOD",
      "REGEXP",   "RLIKE",  "COLLATE", "CHARACTER", "KEY",           "INDEX",     "FORCE",
      "IGNORE",   "USE",    "LATERAL", "DEFAULT",
  };
  return words;
}

// Keywords and built-in functions that are neither reserved nor writing:
// folded by the normalizer, free to be identifiers elsewhere.
const WordSet& OtherKeywords() {
  // clang-format off
  static const WordSet words = {
      // clauses, types, SHOW and EXPLAIN vocabulary
      "ROLLUP", "FIRST", "LAST", "NULLS", "ROWS", "RANGE", "PRECEDING", "FOLLOWING", "UNBOUNDED",
      "CURRENT", "ROW", "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND",
      "WEEK", "QUARTER", "BINARY", "CHARSET", "COLUMNS", "FIELDS", "TABLES", "DATABASES",
      "SCHEMAS", "PROCESSLIST", "FULL", "STATUS", "VARIABLES", "GLOBAL", "SESSION", "ENGINE",
      "ENGINES", "INNODB", "INDEXES", "KEYS", "WARNINGS", "ERRORS", "GRANTS", "TRIGGERS",
      "EVENTS", "PLUGINS", "PRIVILEGES", "MASTER", "SLAVE", "REPLICA", "REPLICAS", "LOGS", "OPEN",
      "PROFILE", "PROFILES", "QUERY", "PLAN", "EXTENDED", "PARTITIONS", "FORMAT", "UNKNOWN",
      "GLOB", "MATCH", "AGAINST", "ESCAPE", "SOUNDS", "HIGH_PRIORITY", "SQL_NO_CACHE",
      "SQL_CALC_FOUND_ROWS", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT",
      "MATERIALIZED", "FILTER", "WITHIN", "SEPARATOR", "UNSIGNED", "SIGNED", "DECIMAL", "CHAR",
      "INTEGER", "ROLLBACK", "COMMIT", "BEGIN",
      // functions
      "COUNT", "SUM", "AVG", "MIN", "MAX", "COALESCE", "IFNULL", "NULLIF", "IF", "IIF", "CAST",
      "CONVERT", "CONCAT", "CONCAT_WS", "GROUP_CONCAT", "SUBSTRING", "SUBSTR", "SUBSTRING_INDEX",
      "LENGTH", "CHAR_LENGTH", "LOWER", "UPPER", "LCASE", "UCASE", "TRIM", "LTRIM", "RTRIM",
      "INSTR", "LOCATE", "POSITION", "LPAD", "RPAD", "ROUND", "FLOOR", "CEIL", "CEILING", "ABS",
      "NOW", "CURDATE", "CURTIME", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
      "UTC_TIMESTAMP", "SYSDATE", "DATE", "TIME", "TIMESTAMP", "DATE_ADD", "DATE_SUB",
      "DATE_FORMAT", "DATEDIFF", "TIMESTAMPDIFF", "TIMESTAMPADD", "UNIX_TIMESTAMP",
      "FROM_UNIXTIME", "STR_TO_DATE", "EXTRACT", "STRFTIME", "JULIANDAY", "ROW_NUMBER", "RANK",
      "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "LAG", "LEAD", "FIRST_VALUE",
      "LAST_VALUE", "NTH_VALUE", "JSON_EXTRACT", "JSON_UNQUOTE", "JSON_OBJECT", "JSON_ARRAY",
      "JSON_LENGTH", "JSON_CONTAINS", "STDDEV", "VARIANCE", "BIT_AND", "BIT_OR", "DATABASE",
      "SCHEMA", "VERSION", "CONNECTION_ID", "CURRENT_USER", "HEX", "UNHEX", "MD5", "SHA1",
      "SHA2", "FIND_IN_SET", "FIELD", "GREATEST", "LEAST", "TYPEOF", "PRINTF",
  };
  // clang-format on
  return words;
}

const WordSet& ForbiddenFunctions() {
  // clang-format off
  static const WordSet words = {
      // MySQL / MariaDB: waits and denial of service
      "SLEEP", "BENCHMARK", "MASTER_POS_WAIT", "SOURCE_POS_WAIT", "MASTER_GTID_WAIT",
      "WAIT_FOR_EXECUTED_GTID_SET", "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS",
      // MySQL / MariaDB: user locks held past the statement
      "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "IS_FREE_LOCK", "IS_USED_LOCK",
      "SERVICE_GET_READ_LOCKS", "SERVICE_GET_WRITE_LOCKS", "SERVICE_RELEASE_LOCKS",
      // MySQL / MariaDB: server file access, well-known shell UDFs, sequences
      "LOAD_FILE", "SYS_EXEC", "SYS_EVAL", "SYS_GET", "SYS_SET", "NEXTVAL", "SETVAL",
      // SQLite: extensions, file access (shell and fileio extension)
      "LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER",
  };
  // clang-format on
  return words;
}

}  // namespace

bool IsKeyword(std::string_view upper_word) {
  return IsReservedWord(upper_word) || OtherKeywords().contains(upper_word) ||
         ForbiddenFunctions().contains(upper_word);
}

bool IsReservedWord(std::string_view upper_word) {
  return ReservedWords().contains(upper_word) || WritingWords().contains(upper_word);
}

bool IsWritingWord(std::string_view upper_word) { return WritingWords().contains(upper_word); }

bool IsForbiddenFunction(std::string_view upper_word) {
  return ForbiddenFunctions().contains(upper_word);
}

}  // namespace diagd::tools::sql
