// Internal to the query_mysql backend: a datasource url (`sqlite:/abs/path`
// or `mysql://user[:pass]@host[:port]/db`, as docs/configuration.md) split
// into what each client library needs.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "core/result.h"

namespace diagd::tools::mysql {

struct SqliteLocation {
  std::string path;  // absolute after config loading; opened read-only, never created
};

struct MysqlLocation {
  std::string user;
  std::string password;  // a secret: never logged, never in an error
  std::string host;      // without IPv6 brackets
  int port = 3306;
  std::string database;
};

using DatasourceLocation = std::variant<SqliteLocation, MysqlLocation>;

// User, password and database are percent-decoded (RFC 3986), so a password
// may hold '@', ':' or '/' as %40, %3A, %2F; a literal '@' in the password is
// also accepted (the last '@' ends the user info). An error names what is
// wrong without quoting the url.
Result<DatasourceLocation> ParseDatasourceUrl(std::string_view url);

}  // namespace diagd::tools::mysql
