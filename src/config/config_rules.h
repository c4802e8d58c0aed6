// Internal to config/: the value rules of docs/configuration.md as pure
// functions, shared by the TOML reader and the environment overrides so that
// a value is judged the same wherever it comes from.
//
// Each Check* returns nothing when the value is acceptable, otherwise the
// problem as text ("expected ..., got ...") to follow "<where>: ". Secrets
// (API keys, tokens, URL passwords) never appear in a problem.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace diagd::config::internal {

using Problem = std::optional<std::string>;
// A rule on a string value, as the Check* functions below.
using Rule = Problem (*)(std::string_view);

// host:port, port 1..65535, IPv6 host in brackets.
Problem CheckListen(std::string_view value);
// http:// or https:// with a host, optional user info and port.
Problem CheckHttpUrl(std::string_view value);
// The same, or empty: the contract's own default for tools.documents.url,
// meaning "no upstream" (required only by the http backend).
Problem CheckOptionalHttpUrl(std::string_view value);
// storage.runs: sqlite:PATH, postgresql://... or postgres://...
Problem CheckRunsUrl(std::string_view value);
// storage.canonical: memory: or redis://[[user]:password@]host[:port][/db]
// (db 0 to 9999; user and password percent-encoded where they must be).
Problem CheckCanonicalUrl(std::string_view value);
// A datasource url: sqlite:PATH or mysql://user[:pass]@host[:port]/db.
Problem CheckDatasourceUrl(std::string_view value);
// [A-Za-z0-9_-]+
Problem CheckDatasourceName(std::string_view value);
// A log topic: [A-Za-z0-9_-][A-Za-z0-9._-]* (what query_logs accepts).
Problem CheckTopicName(std::string_view value);
// Text with something other than white space in it, and no control
// characters: a topic's alias, an incident's question.
Problem CheckNotBlank(std::string_view value);
// Any non-empty text without control characters (model names).
Problem CheckNonEmpty(std::string_view value);
// A secret sent in an HTTP header: no control characters. Never echoed.
Problem CheckSecret(std::string_view value);
// A bearer token: non-empty, no white space or control characters. Never echoed.
Problem CheckToken(std::string_view value);
// An RFC 3339 timestamp with a zone, in the years a WallTime can hold.
Problem CheckRfc3339(std::string_view value);

// WallTime counts nanoseconds in 64 bits (1677-09-21 to 2262-04-11): the
// years of a timestamp the configuration accepts. Converting one outside
// them would overflow, which is undefined behaviour (found by
// fuzz/config_fuzz.cc).
inline constexpr int kMinTimestampYear = 1678;
inline constexpr int kMaxTimestampYear = 2261;

// `url` with the password of its user info replaced by "***".
std::string RedactUrl(std::string_view url);

// `value` in double quotes for a message: control characters shown as '?',
// cut to a readable length.
std::string Quote(std::string_view value);

}  // namespace diagd::config::internal
