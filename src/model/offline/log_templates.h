// Log messages as templates, the way an engineer reads a burst of errors:
// ids, numbers, hashes, IPs and timestamps masked, so that 30 events become
// two or three kinds of message with a count each. Also reads what a message
// says beyond its template: the phrases worth quoting (exception texts, the
// lead words before the key=value tail, a SQL `FROM t WHERE c` fragment) and
// a few well-known signals (full table scan, pool exhaustion, timeout...).
//
// Every phrase returned is an exact substring of the message it came from.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diagd::model::offline {

// The first line of `message` with every run of letters and digits that
// holds a digit replaced by `#` (except an HTTP status where a status is
// written: `" 504`, `[500]`, `status=502`), white space collapsed, cut to
// 240 bytes.
// "payment-service-7c9d6b8f5-p9r4t ... after 5000ms." and the same line from
// another pod with other numbers give the same template.
std::string TemplateOf(std::string_view message);

struct TemplateGroup {
  std::string key;                   // TemplateOf of its events
  std::vector<std::size_t> members;  // indexes into the events, in their order
  std::string level;                 // of the first member
};

// Groups messages by template: most members first, then ERROR before other
// levels, then first appearance. Deterministic.
std::vector<TemplateGroup> GroupByTemplate(const std::vector<std::string>& messages,
                                           const std::vector<std::string>& levels);

// What a message says, beyond its template.
struct MessageReading {
  std::string lead;  // words before the key=value tail ("下单支付失败，订单置为 FAILED")
  std::vector<std::string> exceptions;  // texts after "...Exception: ", deepest cause last
  std::string sql_fragment;             // "FROM payment_record WHERE user_id"
  std::string table;                    // from the fragment
  std::string column;                   // the first filtered column
  std::string second_column;            // a second filtered column ("created_at"), if any
  std::string rows_examined_phrase;     // "Rows_examined: 18756038"
  std::optional<std::int64_t> rows_examined;
  std::optional<std::int64_t> rows_sent;
  std::string query_time;       // "78.703956" (seconds), when given
  bool full_scan = false;       // examined >= 100k and >= 1000x sent
  bool slow = false;            // "slow query", "slow sql", 慢查询
  bool pool_exhausted = false;  // "Connection is not available", "pool exhausted"...
  bool timeout = false;         // "timed out", "timeout", 超时
  bool server_error = false;    // an HTTP 5xx named in the text
  bool out_of_memory = false;   // OutOfMemoryError, OOM, maxmemory
  bool refused = false;         // "Connection refused"
  bool certificate = false;     // certificate / PKIX / SSL handshake
  bool rate_limited = false;    // "limiting requests", "Too Many Requests", 限流
  bool backlog = false;         // a consumer falling behind: "lag=12000", "consumer lag", 积压
  bool space_exhausted = false;  // "No space left on device", "disk full", "used=100%"
};

MessageReading ReadMessage(std::string_view message);

// Whether a reading names how something fails (a timeout, a 5xx, an
// exhausted pool, memory, a refused connection, a certificate, a slow query,
// a full scan, requests rejected by a rate limit, a consumer's backlog or a
// full disk),
// whatever its level: "coupon rejected: CouponExpired" at
// ERROR names none, "stuck ... (readTimeout=0)" at WARN does.
bool NamesFailure(const MessageReading& reading);

// The phrase most worth quoting from `message`: the deepest exception text,
// else the lead, else the start of the first line. At least 4 characters
// when the message has them; at most `max_code_points`.
std::string BestPhrase(std::string_view message, std::size_t max_code_points = 120);

}  // namespace diagd::model::offline
