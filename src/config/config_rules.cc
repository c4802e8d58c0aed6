#include "config/config_rules.h"

#include <cctype>
#include <cstddef>

#include "config/config.h"
#include "core/clock.h"
#include "core/text.h"

namespace diagd::config {
namespace internal {
namespace {

constexpr std::size_t kMaxQuotedCodePoints = 80;

struct HostPort {
  std::string host;
  std::optional<int> port;
};

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool HasControlOrSpace(std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return true;
  }
  return false;
}

bool HasControl(std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A DNS name or IPv4 address: the unreserved characters of RFC 3986.
bool IsRegName(std::string_view host) {
  if (host.empty()) return false;
  for (char c : host) {
    if (!IsAsciiAlnum(c) && c != '-' && c != '.' && c != '_' && c != '~') return false;
  }
  return true;
}

bool IsIpv6Literal(std::string_view host) {
  if (host.find(':') == std::string_view::npos) return false;
  for (char c : host) {
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != ':' && c != '.') return false;
  }
  return true;
}

// "host", "host:port", "[v6]" or "[v6]:port"; port 1..65535.
std::optional<HostPort> SplitHostPort(std::string_view s) {
  HostPort out;
  std::string_view rest;
  if (!s.empty() && s.front() == '[') {
    std::size_t close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view host = s.substr(1, close - 1);
    if (!IsIpv6Literal(host)) return std::nullopt;
    out.host = std::string(host);
    rest = s.substr(close + 1);
  } else {
    std::size_t colon = s.find(':');
    std::string_view host = s.substr(0, colon);
    if (!IsRegName(host)) return std::nullopt;
    out.host = std::string(host);
    rest = colon == std::string_view::npos ? std::string_view() : s.substr(colon);
  }
  if (rest.empty()) return out;
  if (rest.front() != ':') return std::nullopt;
  std::string_view digits = rest.substr(1);
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  out.port = port;
  return out;
}

std::string Got(std::string_view url) { return ", got " + Quote(RedactUrl(url)); }

bool IsSqliteUrl(std::string_view value) {
  return StartsWith(value, "sqlite:") && value.size() > 7 && !HasControl(value);
}

}  // namespace

std::string Quote(std::string_view value) {
  bool truncated = false;
  std::string cut =
      text::TruncateCodePoints(text::SanitizeUtf8(value), kMaxQuotedCodePoints, &truncated);
  for (char& c : cut) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = '?';
  }
  return "\"" + cut + (truncated ? "...\"" : "\"");
}

std::string RedactUrl(std::string_view url) {
  std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  std::size_t start = scheme_end + 3;
  // The last '@' ends the user info even when the password holds '@' or '/';
  // redacting a little too much of an odd path is the safe mistake.
  std::size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  std::size_t colon = url.find(':', start);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

Problem CheckListen(std::string_view value) {
  auto parsed = SplitHostPort(value);
  if (parsed && parsed->port) return std::nullopt;
  return "expected host:port with a port from 1 to 65535 (IPv6 as [::1]:8080), got " + Quote(value);
}

Problem CheckHttpUrl(std::string_view value) {
  std::string lower = text::AsciiLower(value.substr(0, 8));
  std::size_t start = StartsWith(lower, "http://") ? 7 : StartsWith(lower, "https://") ? 8 : 0;
  if (start != 0 && !HasControlOrSpace(value)) {
    std::string_view rest = value.substr(start);
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    std::size_t at = authority.rfind('@');
    if (at != std::string_view::npos) authority = authority.substr(at + 1);
    if (SplitHostPort(authority)) return std::nullopt;
  }
  return "expected an http:// or https:// URL with a host" + Got(value);
}

Problem CheckOptionalHttpUrl(std::string_view value) {
  return value.empty() ? std::nullopt : CheckHttpUrl(value);
}

Problem CheckRunsUrl(std::string_view value) {
  if (IsSqliteUrl(value)) return std::nullopt;
  if ((StartsWith(value, "postgresql://") || StartsWith(value, "postgres://")) &&
      !HasControlOrSpace(value)) {
    return std::nullopt;  // libpq judges the rest of its own URI
  }
  return "expected sqlite:PATH, postgresql://... or postgres://..." + Got(value);
}

Problem CheckCanonicalUrl(std::string_view value) {
  if (value == "memory:") return std::nullopt;
  // The grammar of store/redis_client.h's ParseRedisUrl, which opens it.
  if (StartsWith(value, "redis://") && !HasControlOrSpace(value) &&
      value.find_first_of("?#") == std::string_view::npos) {
    std::string_view rest = value.substr(8);
    bool userinfo_ok = true;
    // The last '@' ends the user info: a password may hold '@' and '/'.
    if (std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
      std::string_view userinfo = rest.substr(0, at);
      std::size_t colon = userinfo.find(':');
      userinfo_ok = colon != std::string_view::npos && colon + 1 < userinfo.size();
      for (std::size_t i = 0; i < userinfo.size(); ++i) {
        if (userinfo[i] != '%') continue;
        userinfo_ok = userinfo_ok && i + 2 < userinfo.size() &&
                      std::isxdigit(static_cast<unsigned char>(userinfo[i + 1])) &&
                      std::isxdigit(static_cast<unsigned char>(userinfo[i + 2]));
      }
      rest = rest.substr(at + 1);
    }
    std::size_t slash = rest.find('/');
    bool db_ok = true;
    if (slash != std::string_view::npos) {
      std::string_view db = rest.substr(slash + 1);
      db_ok = !db.empty() && db.size() <= 4;
      for (char c : db) db_ok = db_ok && c >= '0' && c <= '9';
    }
    if (userinfo_ok && db_ok && SplitHostPort(rest.substr(0, slash))) return std::nullopt;
  }
  return "expected memory: or redis://[[user]:password@]host[:port][/db]" + Got(value);
}

Problem CheckDatasourceUrl(std::string_view value) {
  if (IsSqliteUrl(value)) return std::nullopt;
  if (StartsWith(value, "mysql://") && !HasControlOrSpace(value)) {
    std::string_view rest = value.substr(8);
    std::size_t at = rest.rfind('@');  // a password may hold '@'
    if (at != std::string_view::npos) {
      std::string_view user = rest.substr(0, rest.substr(0, at).find(':'));
      std::string_view after = rest.substr(at + 1);
      std::size_t slash = after.find('/');
      if (!user.empty() && slash != std::string_view::npos) {
        std::string_view db = after.substr(slash + 1);
        if (!db.empty() && db.find_first_of("/?#") == std::string_view::npos &&
            SplitHostPort(after.substr(0, slash))) {
          return std::nullopt;
        }
      }
    }
  }
  return "expected sqlite:PATH or mysql://user[:pass]@host[:port]/db" + Got(value);
}

Problem CheckDatasourceName(std::string_view value) {
  bool ok = !value.empty();
  for (char c : value) ok = ok && (IsAsciiAlnum(c) || c == '_' || c == '-');
  if (ok) return std::nullopt;
  return "expected a name of ASCII letters, digits, '_' and '-', got " + Quote(value);
}

Problem CheckTopicName(std::string_view value) {
  bool ok = !value.empty() && value.front() != '.';
  for (char c : value) ok = ok && (IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.');
  if (ok) return std::nullopt;
  return "expected a topic name of ASCII letters, digits, '_', '-' and '.' (not first), got " +
         Quote(value);
}

Problem CheckNotBlank(std::string_view value) {
  bool blank = value.find_first_not_of(" \t") == std::string_view::npos;
  if (!blank && !HasControl(value)) return std::nullopt;
  return "expected text with something other than white space, without control characters, "
         "got " +
         Quote(value);
}

Problem CheckNonEmpty(std::string_view value) {
  if (!value.empty() && !HasControl(value)) return std::nullopt;
  return "expected a non-empty string without control characters, got " + Quote(value);
}

Problem CheckSecret(std::string_view value) {
  if (!HasControl(value)) return std::nullopt;
  return std::string("must not contain control characters (value not shown)");
}

Problem CheckToken(std::string_view value) {
  if (!value.empty() && !HasControlOrSpace(value)) return std::nullopt;
  return std::string(
      "expected a non-empty token without spaces or control characters "
      "(value not shown)");
}

Problem CheckRfc3339(std::string_view value) {
  // The year first: ParseRfc3339 would overflow on one a WallTime cannot hold.
  int year = 0;
  for (std::size_t i = 0; i < 4 && i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) {
    year = year * 10 + (value[i] - '0');
  }
  if (value.size() >= 4 && year >= kMinTimestampYear && year <= kMaxTimestampYear &&
      ParseRfc3339(value)) {
    return std::nullopt;
  }
  return "expected an RFC 3339 timestamp such as \"2026-11-29T10:30:00Z\" (years " +
         std::to_string(kMinTimestampYear) + " to " + std::to_string(kMaxTimestampYear) +
         "), got " + Quote(value);
}

}  // namespace internal

std::optional<ListenAddress> ParseListenAddress(std::string_view listen) {
  auto parsed = internal::SplitHostPort(listen);
  if (!parsed || !parsed->port) return std::nullopt;
  return ListenAddress{parsed->host, *parsed->port};
}

}  // namespace diagd::config
