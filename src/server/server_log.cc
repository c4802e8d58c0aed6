#include "server/server_log.h"

#include <chrono>

#include "core/clock.h"
#include "core/json_writer.h"
#include "core/overloaded.h"

namespace diagd::server {

void ServerLog::Info(std::string_view event, std::initializer_list<LogField> fields) {
  Write("info", event, fields);
}
void ServerLog::Warn(std::string_view event, std::initializer_list<LogField> fields) {
  Write("warn", event, fields);
}
void ServerLog::Error(std::string_view event, std::initializer_list<LogField> fields) {
  Write("error", event, fields);
}

void ServerLog::Write(std::string_view level, std::string_view event,
                      std::initializer_list<LogField> fields) {
  // Log times are real time, even when the configuration fixes `now` for
  // recorded data.
  json::JsonWriter w(256);
  w.BeginObject()
      .Key("time").String(FormatRfc3339Millis(std::chrono::system_clock::now()))
      .Key("level").String(level)
      .Key("event").String(event);
  for (const LogField& field : fields) {
    w.Key(field.key);
    std::visit(Overloaded{[&](std::nullptr_t) { w.Null(); },
                          [&](std::string_view s) { w.String(s); },
                          [&](std::int64_t i) { w.Int(i); }},
               field.value);
  }
  w.EndObject();
  MutexLock lock(mu_);
  out_ << w.str() << '\n' << std::flush;
}

}  // namespace diagd::server
