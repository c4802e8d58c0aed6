#include "config/toml_reader.h"

#include <chrono>
#include <utility>

namespace diagd::config::internal {
namespace {

const char* TypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::none:
      return "nothing";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
  }
  return "an unknown type";
}

int LineOf(const toml::source_region& source) { return static_cast<int>(source.begin.line); }

// "expected a positive integer", or the range when the upper bound matters.
std::string RangeText(int64_t value, int64_t min, int64_t max) {
  bool unbounded = max == INT_MAX || max == INT64_MAX;
  if (value < min && unbounded) {
    return min == 1 ? "expected a positive integer"
                    : "expected an integer of at least " + std::to_string(min);
  }
  return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string ChoicesText(std::initializer_list<std::string_view> choices) {
  std::string text = "expected ";
  std::size_t i = 0;
  for (std::string_view choice : choices) {
    if (i > 0) text += i + 1 == choices.size() ? " or " : ", ";
    text += '"';
    text += choice;
    text += '"';
    ++i;
  }
  return text;
}

WallTime ToWallTime(const toml::date_time& dt) {
  using namespace std::chrono;
  sys_days days = year{dt.date.year} / month{dt.date.month} / day{dt.date.day};
  auto time = days + hours{dt.time.hour} + minutes{dt.time.minute} + seconds{dt.time.second} +
              nanoseconds{dt.time.nanosecond} - minutes{dt.offset->minutes};
  return time_point_cast<WallTime::duration>(time);
}

}  // namespace

TableReader::TableReader(const toml::table& table, std::string path, KeyLocations& locations,
                         Problems& problems)
    : table_(&table), path_(std::move(path)), locations_(&locations), problems_(&problems) {}

std::string TableReader::KeyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void TableReader::AddProblem(std::string_view key, std::string_view problem) {
  problems_->Add(locations_->Label(KeyPath(key)), problem);
}

const toml::node* TableReader::Find(std::string_view key) {
  asked_.emplace(key);
  const toml::node* node = table_->get(key);
  if (node != nullptr) locations_->SetLine(KeyPath(key), LineOf(node->source()));
  return node;
}

void TableReader::TypeProblem(std::string_view key, const toml::node& node,
                              std::string_view expected) {
  AddProblem(key, "expected " + std::string(expected) + ", got " + TypeName(node.type()));
}

std::optional<int64_t> TableReader::ReadInteger(std::string_view key, int64_t min, int64_t max) {
  const toml::node* node = Find(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_integer()) {
    TypeProblem(key, *node, "an integer");
    return std::nullopt;
  }
  int64_t value = node->as_integer()->get();
  if (value < min || value > max) {
    AddProblem(key, RangeText(value, min, max) + ", got " + std::to_string(value));
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> TableReader::ReadString(std::string_view key, Rule rule) {
  const toml::node* node = Find(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_string()) {
    TypeProblem(key, *node, "a string");
    return std::nullopt;
  }
  const std::string& value = node->as_string()->get();
  if (rule != nullptr) {
    if (Problem problem = rule(value)) {
      AddProblem(key, *problem);
      return std::nullopt;
    }
  }
  return value;
}

void TableReader::Read(std::string_view key, std::string& out, Rule rule) {
  if (auto value = ReadString(key, rule)) out = std::move(*value);
}

void TableReader::Read(std::string_view key, std::optional<std::string>& out, Rule rule) {
  if (auto value = ReadString(key, rule)) out = std::move(*value);
}

void TableReader::Read(std::string_view key, int& out, int min, int max) {
  if (auto value = ReadInteger(key, min, max)) out = static_cast<int>(*value);
}

void TableReader::Read(std::string_view key, std::optional<int>& out, int min, int max) {
  if (auto value = ReadInteger(key, min, max)) out = static_cast<int>(*value);
}

void TableReader::Read(std::string_view key, int64_t& out, int64_t min) {
  if (auto value = ReadInteger(key, min, INT64_MAX)) out = *value;
}

void TableReader::Read(std::string_view key, std::filesystem::path& out) {
  if (auto value = ReadString(key, CheckNonEmpty)) out = std::move(*value);
}

void TableReader::Read(std::string_view key, std::vector<std::string>& out, Rule rule) {
  const toml::node* node = Find(key);
  if (node == nullptr) return;
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    TypeProblem(key, *node, "an array of strings");
    return;
  }
  std::vector<std::string> values;
  bool ok = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    std::string label =
        locations_->At(LineOf(element.source())) + KeyPath(key) + "[" + std::to_string(i) + "]";
    Problem problem;
    if (!element.is_string()) {
      problem = std::string("expected a string, got ") + TypeName(element.type());
    } else if (rule != nullptr) {
      problem = rule(element.as_string()->get());
    }
    if (problem) {
      problems_->Add(std::move(label), *problem);
      ok = false;
      continue;
    }
    values.push_back(element.as_string()->get());
  }
  if (ok) out = std::move(values);
}

void TableReader::Read(std::string_view key, std::optional<WallTime>& out) {
  const toml::node* node = Find(key);
  if (node == nullptr) return;
  if (node->is_string()) {
    const std::string& value = node->as_string()->get();
    if (Problem problem = CheckRfc3339(value)) {
      AddProblem(key, *problem);
      return;
    }
    out = ParseRfc3339(value);
  } else if (node->is_date_time()) {
    const toml::date_time& value = node->as_date_time()->get();
    if (!value.offset) {
      AddProblem(key,
                 "expected an RFC 3339 timestamp with a zone (Z or +HH:MM), got a "
                 "date-time without one");
      return;
    }
    // ToWallTime would overflow (undefined behaviour) outside these years.
    if (value.date.year < kMinTimestampYear || value.date.year > kMaxTimestampYear) {
      AddProblem(key, "expected a timestamp in the years " + std::to_string(kMinTimestampYear) +
                          " to " + std::to_string(kMaxTimestampYear));
      return;
    }
    out = ToWallTime(value);
  } else {
    TypeProblem(key, *node, "an RFC 3339 timestamp");
  }
}

std::optional<std::size_t> TableReader::ReadChoice(
    std::string_view key, std::initializer_list<std::string_view> choices) {
  auto value = ReadString(key, nullptr);
  if (!value) return std::nullopt;
  std::size_t index = 0;
  for (std::string_view choice : choices) {
    if (*value == choice) return index;
    ++index;
  }
  AddProblem(key, ChoicesText(choices) + ", got " + Quote(*value));
  return std::nullopt;
}

std::optional<TableReader> TableReader::Table(std::string_view key) {
  const toml::node* node = Find(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_table()) {
    TypeProblem(key, *node, "a table");
    return std::nullopt;
  }
  return TableReader(*node->as_table(), KeyPath(key), *locations_, *problems_);
}

std::vector<std::string> TableReader::Keys() const {
  std::vector<std::string> keys;
  for (auto&& [key, node] : *table_) keys.emplace_back(key.str());
  return keys;
}

void TableReader::RejectUnknownKeys(std::string_view table_hint) {
  for (auto&& [key, node] : *table_) {
    if (asked_.count(key.str()) != 0) continue;
    int line = LineOf(key.source());
    if (line == 0) line = LineOf(node.source());
    std::string problem = "unknown key";
    if (!table_hint.empty() && node.is_table()) problem += " (" + std::string(table_hint) + ")";
    problems_->Add(locations_->At(line) + KeyPath(key.str()), problem);
  }
}

}  // namespace diagd::config::internal
