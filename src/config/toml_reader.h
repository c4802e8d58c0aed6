// Internal to config/ and the tool sections compiled into it
// (tools/tool_section.h): strict, typed reads from one toml++ table.
//
// A TableReader knows its dotted path ("tools.logs"), remembers which keys
// were asked for, and turns every wrong type, out-of-range number, rejected
// value and unknown key into a problem naming the line and the dotted key. A
// read never throws and never stops at the first problem, so one run reports
// everything wrong with a file. Included only by the readers' .cc files:
// toml++ is slow to compile.
#pragma once

#include <toml++/toml.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_parse.h"
#include "config/config_rules.h"
#include "core/clock.h"

namespace diagd::config::internal {

class TableReader;

// The [tools] table into `out` (config_sections.cc); paths kept as written.
void ReadTools(TableReader tools, ToolsConfig& out);

class TableReader {
 public:
  // `path` is the dotted path of `table` ("" for the root). The reader keeps
  // pointers to all three arguments; they must outlive it.
  TableReader(const toml::table& table, std::string path, KeyLocations& locations,
              Problems& problems);

  // Each Read leaves `out` untouched when the key is absent, sets it when the
  // value has the right type and passes the rule, and records a problem
  // otherwise.
  void Read(std::string_view key, std::string& out, Rule rule = nullptr);
  void Read(std::string_view key, std::optional<std::string>& out, Rule rule = nullptr);
  void Read(std::string_view key, int& out, int min = 1, int max = INT_MAX);
  void Read(std::string_view key, std::optional<int>& out, int min = 1, int max = INT_MAX);
  void Read(std::string_view key, int64_t& out, int64_t min = 1);
  // A non-empty path; kept as written (resolved later).
  void Read(std::string_view key, std::filesystem::path& out);
  // An array of strings, each passing `rule` (problems name key[index]).
  void Read(std::string_view key, std::vector<std::string>& out, Rule rule);
  // An RFC 3339 string, or a TOML offset date-time.
  void Read(std::string_view key, std::optional<WallTime>& out);

  // The index in `choices` of the key's string value; nothing when absent or
  // not one of them (a problem is recorded).
  std::optional<std::size_t> ReadChoice(std::string_view key,
                                        std::initializer_list<std::string_view> choices);

  // The sub-table `key`; nothing when absent, or when it is not a table (a
  // problem is recorded).
  std::optional<TableReader> Table(std::string_view key);

  // Whether the table has `key` (without marking it as asked for).
  bool Has(std::string_view key) const { return table_->contains(key); }

  // Every key of this table, in order, for tables of free-form names.
  std::vector<std::string> Keys() const;

  // Records "unknown key" for every key no Read, ReadChoice or Table asked
  // for; `table_hint` (e.g. the allowed table names) follows the message when
  // the unknown key holds a table.
  void RejectUnknownKeys(std::string_view table_hint = {});

  // The dotted path of `key` in this table.
  std::string KeyPath(std::string_view key) const;
  // Records a problem about `key` of this table at its line.
  void AddProblem(std::string_view key, std::string_view problem);

 private:
  // The node of `key`, marked as asked for; records its line.
  const toml::node* Find(std::string_view key);
  void TypeProblem(std::string_view key, const toml::node& node, std::string_view expected);
  std::optional<int64_t> ReadInteger(std::string_view key, int64_t min, int64_t max);
  std::optional<std::string> ReadString(std::string_view key, Rule rule);

  const toml::table* table_;
  std::string path_;
  KeyLocations* locations_;
  Problems* problems_;
  std::set<std::string, std::less<>> asked_;
};

}  // namespace diagd::config::internal
