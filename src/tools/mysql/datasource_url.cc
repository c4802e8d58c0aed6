#include "tools/mysql/datasource_url.h"

#include <charconv>
#include <optional>

#include "core/percent_decode.h"

namespace diagd::tools::mysql {
namespace {

constexpr std::string_view kSqliteScheme = "sqlite:";
constexpr std::string_view kMysqlScheme = "mysql://";

// "%40" -> "@". A value with a '%' that starts no escape is taken as it
// is written: a password written without encoding keeps working.
std::string DecodedOrAsWritten(std::string_view s) {
  return diagd::PercentDecode(s).value_or(std::string(s));
}

std::optional<int> ParsePort(std::string_view text) {
  int port = 0;
  auto result = std::from_chars(text.data(), text.data() + text.size(), port);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

Result<DatasourceLocation> ParseMysql(std::string_view rest) {
  const Error bad = Error::InvalidArgument(
      "expected mysql://user[:pass]@host[:port]/db (the url is not repeated: it may hold a "
      "password)");
  std::size_t at = rest.rfind('@');
  if (at == std::string_view::npos) return bad;
  std::string_view userinfo = rest.substr(0, at);
  std::string_view address = rest.substr(at + 1);
  std::size_t slash = address.find('/');
  if (slash == std::string_view::npos) return bad;
  std::string_view hostport = address.substr(0, slash);
  std::string_view database = address.substr(slash + 1);
  if (database.empty() || database.find_first_of("/?#") != std::string_view::npos) return bad;

  MysqlLocation location;
  std::size_t colon = userinfo.find(':');
  location.user = DecodedOrAsWritten(userinfo.substr(0, colon));
  if (colon != std::string_view::npos)
    location.password = DecodedOrAsWritten(userinfo.substr(colon + 1));
  if (location.user.empty()) return bad;
  location.database = DecodedOrAsWritten(database);

  std::string_view host = hostport;
  std::string_view port;
  if (!hostport.empty() && hostport.front() == '[') {
    std::size_t close = hostport.find(']');
    if (close == std::string_view::npos) return bad;
    host = hostport.substr(1, close - 1);
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad;
      port = after.substr(1);
    }
  } else if (std::size_t port_colon = hostport.rfind(':'); port_colon != std::string_view::npos) {
    host = hostport.substr(0, port_colon);
    port = hostport.substr(port_colon + 1);
  }
  if (host.empty()) return bad;
  location.host = std::string(host);
  if (!port.empty() || hostport.ends_with(':')) {
    auto number = ParsePort(port);
    if (!number) return bad;
    location.port = *number;
  }
  return DatasourceLocation(std::move(location));
}

}  // namespace

Result<DatasourceLocation> ParseDatasourceUrl(std::string_view url) {
  if (url.starts_with(kMysqlScheme)) return ParseMysql(url.substr(kMysqlScheme.size()));
  if (url.starts_with(kSqliteScheme) && url.size() > kSqliteScheme.size()) {
    return DatasourceLocation(SqliteLocation{std::string(url.substr(kSqliteScheme.size()))});
  }
  return Error::InvalidArgument("expected sqlite:PATH or mysql://user[:pass]@host[:port]/db");
}

}  // namespace diagd::tools::mysql
