// The server's structured log: one JSON object per line, with the time, a
// level and an event name, then the event's fields. Runs get one line each
// (id, outcome, duration, tokens); nothing a user asked or a tool returned
// is ever written here.
//
// Thread safety: lines from any thread, never interleaved.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string_view>
#include <variant>

#include "core/mutex.h"

namespace diagd::server {

using LogValue = std::variant<std::nullptr_t, std::string_view, std::int64_t>;
struct LogField {
  std::string_view key;
  LogValue value;
};

class ServerLog {
 public:
  explicit ServerLog(std::ostream& out) : out_(out) {}
  void Info(std::string_view event, std::initializer_list<LogField> fields = {});
  void Warn(std::string_view event, std::initializer_list<LogField> fields = {});
  void Error(std::string_view event, std::initializer_list<LogField> fields = {});

 private:
  void Write(std::string_view level, std::string_view event,
             std::initializer_list<LogField> fields);

  Mutex mu_;
  std::ostream& out_ GUARDED_BY(mu_);
};

}  // namespace diagd::server
