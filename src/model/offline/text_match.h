// Small text helpers of the offline provider: case-insensitive containment,
// name matching at token boundaries, and exact-substring cutting that never
// splits a UTF-8 code point. Every "cut" function returns a substring of its
// input, byte for byte, so that what it returns can be quoted as evidence.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace diagd::model::offline {

// Case-insensitive (Unicode case folding) substring test.
bool ContainsFold(std::string_view haystack, std::string_view needle);

// True when `text` holds any CJK ideograph.
bool HasCjk(std::string_view text);

// Every run of three CJK ideographs in `text` ("连接池耗尽" gives 连接池,
// 接池耗, 池耗尽), in order, each once: terms a Chinese text shares with
// another without word boundaries to split on.
std::vector<std::string> CjkTrigrams(std::string_view text);

// Where `needle` occurs in `text` when a placeholder written in `text`
// (`<域名>`, `<host>`, `{service}`, `${service}`: a runbook's way of saying
// "any value here") may stand for one value of `needle` (a run of letters,
// digits and . _ - : /, "api.unionbank.example.com"); the position in
// `text`, or npos. Exact bytes elsewhere: fold both first for case.
std::size_t FindAllowingPlaceholders(std::string_view text, std::string_view needle);

// True when `name` occurs in `text` (ASCII case-insensitive) with no name
// character ([A-Za-z0-9_-]) right before or after it: "payment-service" is
// in "http://payment-service/pay" but not in "payment-service-7c9d6".
bool ContainsName(std::string_view text, std::string_view name);

// True when prose names `topic`: as it is (ContainsName) or with spaces
// for its dashes and underscores ("kube events" for kube-events, "node
// agent" for node-agent), as runbooks write it.
bool ProseNamesTopic(std::string_view text, std::string_view topic);

// True when `text` names `topic` the way code does: "BankChannel" (a class)
// for "bank-channel". Only for a topic of two or more parts: a one-word
// topic's capitalized name ("Gateway") is any class's prefix.
bool ContainsCamelName(std::string_view text, std::string_view topic);

// The names in `text` that point at one thing: host names
// ("api.unionbank.example.com"), IPv4 addresses ("10.0.0.53"), absolute
// paths ("/data/order-api/spool"), in order, then the values of host fields
// ("host=app-node-07"), each once.
std::vector<std::string> Identifiers(std::string_view text);

// The `key=value` fields of a message, in order: a key starts the message
// or follows a space; its value runs to the next key, trimmed ("usage=client
// (mTLS to api.x.com) not_after=2026-10-23 20:56:00" gives two). Each value
// is an exact substring of `message`.
struct KeyValueField {
  std::string_view key, value;
};
std::vector<KeyValueField> KeyValueFields(std::string_view message);

// The start of `s` with at most `max_code_points` code points, trailing
// white space and dangling punctuation removed: still a prefix of `s`.
std::string CutPrefix(std::string_view s, std::size_t max_code_points);

// The sentence of `text` around byte `pos` (bounded by 。；！？\n or ". "),
// cut to `max_code_points` around `pos`, trimmed: an exact substring.
std::string SentenceAround(std::string_view text, std::size_t pos, std::size_t max_code_points);

// Words of ASCII letters, digits and `_` (at least `min_chars` long), in
// order of appearance, each once.
std::vector<std::string> AsciiWords(std::string_view text, std::size_t min_chars);

// Trims ASCII white space at both ends.
std::string_view Trim(std::string_view s);

// The "YYYY-MM-DD HH:MM:SS" form of a timestamp written "YYYY-MM-DDTHH:MM:SS..."
// or "YYYY-MM-DD HH:MM:SS..."; empty when `s` has another shape.
std::string SortableTime(std::string_view s);

// A SortableTime `minutes` before `t` (empty when `t` is empty).
std::string MinusMinutes(const std::string& t, long minutes);

}  // namespace diagd::model::offline
