// A tool's part of `diagd check` (docs/check.md): the face's Check opens the
// tool's backend as a run would and says what it holds, one row a thing
// checked, and names each problem by a misconfiguration of the tool's own
// (its Advice table, which docs/check.md mirrors word for word). The face
// declares both; the tool's backend library defines them (NAME_check.cc).
//
// Advice texts are templates: `{name}` stands for a value the check knows
// (a path, a URL, a datasource), filled by FillAdvice. A value never holds a
// secret: keys are named, never quoted.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace diagd::config {
struct Config;
}  // namespace diagd::config

namespace diagd::tools {

// One row of the report: `part` is the tool's ("documents", "logs",
// "datasource", "metrics") or check's own ("config", "store", "model");
// `name` what was checked (a path, a topic, a datasource, a URL); `detail`
// what was found; `advice` empty when ok, else what to change.
struct CheckRow {
  std::string part;
  std::string name;
  bool ok = true;
  std::string detail;
  std::string advice;
};

// A misconfiguration `diagd check` knows by name.
struct AdviceEntry {
  const char* code;     // stable name, e.g. "LOGS_NO_TOPICS"
  const char* part;     // the rows it appears on
  const char* symptom;  // what the check saw, for the docs
  const char* advice;   // the template FillAdvice fills
};

struct CheckContext {
  const config::Config& config;  // valid and complete
  const Clock& clock;            // a real clock: deadlines are measured with it
  // Building an index, reading one topic file, one query: at most this long.
  std::chrono::milliseconds max_time;
  // Told of each thing before it is checked (progress on stderr); may be empty.
  std::function<void(std::string_view part, std::string_view name)> announce;

  void Announce(std::string_view part, std::string_view name) const {
    if (announce) announce(part, name);
  }
};

// Values for the `{name}` placeholders; a placeholder with no value is left
// as `{name}` (a test catches that), and braces around anything but a
// lower-case identifier (JSON in a text) stay as they are.
using AdviceValues = std::map<std::string, std::string>;
std::string FillAdvice(std::string_view advice, const AdviceValues& values);

// `row` marked not ok, with `detail` and the advice of `entry`.
CheckRow Problem(CheckRow row, std::string detail, const AdviceEntry& entry,
                 const AdviceValues& values);

// "1 topic", "3 topics".
std::string Plural(std::size_t n, const char* one, const char* many);

}  // namespace diagd::tools
