// The word lists behind the classifier and the scope normalizer. Internal to
// diagd_sql_text; `docs/sql-safety.md` explains each list.
//
// Every function takes a word in ASCII upper case and matches it whole.
//
// Thread safety: pure functions over constant tables.
#pragma once

#include <string_view>

namespace diagd::tools::sql {

// SQL keywords and built-in function names. The normalizer folds these to
// upper case; both databases read them case-insensitively.
bool IsKeyword(std::string_view upper_word);

// Keywords that cannot stand unquoted for a table or CTE name in a statement
// the classifier accepts (`EXPLAIN <table>`, `WITH <name> AS`).
bool IsReservedWord(std::string_view upper_word);

// Words that only appear in statements that write, change the schema or the
// session, or run code. Refused wherever they appear as code, with the few
// read-only uses handled by the classifier (REPLACE(...), SHOW CREATE ...).
bool IsWritingWord(std::string_view upper_word);

// Functions with side effects beyond reading: waits, locks, file access,
// sequence changes, extension loading, shell access.
bool IsForbiddenFunction(std::string_view upper_word);

}  // namespace diagd::tools::sql
