// The scope identity of a SQL statement, for duplicate-call detection.
//
// Two statements with the same normalized text are the same query: they
// differ at most in whitespace, comments, keyword case and trailing `;`.
// Literals and identifiers keep their bytes, so `'ABC'` and `'abc'`, or
// `orders` and `Orders` (distinct tables on a case-sensitive server), stay
// different. The datasource and the params are the caller's part of the scope.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <string_view>

namespace diagd::tools::sql {

// Whitespace and comments between tokens become one space (none at the ends),
// keywords are upper-cased outside literals and quoted identifiers (`x`, "x",
// [x]), trailing semicolons are dropped. Tokens are read by MySQL's default
// rules with [x] as an identifier. Total: text the classifier would refuse is
// normalized as far as it lexes, and the rest kept verbatim.
std::string NormalizeForScope(std::string_view sql);

}  // namespace diagd::tools::sql
