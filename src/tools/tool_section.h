// A tool's config section: its [tools.NAME] table as a plain struct, read,
// resolved and checked by the tool's own code (tools/NAME/NAME_section.*),
// which config/ calls for every registered tool. The section is the part of
// a tool folder that belongs to the config layer: its .cc files compile into
// diagd_config and use only config's table reader, never the tool's face.
//
// A section struct holds its table as one named member, and
// config::ToolsConfig derives from every registered section, so a caller
// reads `config.tools.logs` or `config.tools.metrics` as before. tool_sections.h
// lists the registered sections: that list is the one registration line of a
// tool.
#pragma once

#include <concepts>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

namespace diagd::config::internal {
class TableReader;
class KeyLocations;
class Problems;
}  // namespace diagd::config::internal

namespace diagd::tools {

// A file or folder of this machine a tool reads, as its section names it:
// what `diagd eval` checks an incident's workspace by.
struct LocalPath {
  std::string key;  // "[tools.logs] path", "[tools.mysql.datasources.orders] url"
  std::filesystem::path path;
  bool folder = true;  // else a file
};

template <typename T>
concept ToolSection = requires(config::internal::TableReader& table, T& section,
                               const T& const_section, const std::filesystem::path& base,
                               const config::internal::KeyLocations& at,
                               config::internal::Problems& problems) {
  // The tool's face (tool_face.h), declared ahead in the section header;
  // its part of CatalogOptions (its rules, as a member of its own name) and
  // of ResultLimits (its bounds), from its types header.
  typename T::Face;
  typename T::Catalog;
  typename T::Limits;
  // The table's name under [tools]; Read is called only when the file has it.
  { T::kTable } -> std::convertible_to<const char*>;
  // Reads the table's keys (paths kept as written), rejecting unknown ones;
  // each problem names its line and dotted key.
  { T::Read(table, section) } -> std::same_as<void>;
  // Makes every relative path and sqlite: URL absolute against `base`.
  { T::ResolvePaths(base, section) } -> std::same_as<void>;
  // The rules that relate two keys, judged on the finished configuration.
  { T::CheckRules(const_section, at, problems) } -> std::same_as<void>;
  // The files and folders of this machine it reads (none for a remote backend).
  { T::LocalPaths(const_section) } -> std::same_as<std::vector<LocalPath>>;
};

// Holds every part as a base, so each one's members are members of the whole.
template <typename... Parts>
struct Joined : Parts... {
  bool operator==(const Joined&) const = default;
};

template <ToolSection... Sections>
struct SectionList {
  using Holder = Joined<Sections...>;
  using Catalogs = Joined<typename Sections::Catalog...>;
  using Limits = Joined<typename Sections::Limits...>;

  // Calls `f(std::type_identity<Section>{})` for each section, in registration order.
  template <typename F>
  static void ForEach(F&& f) {
    (f(std::type_identity<Sections>{}), ...);
  }
};

}  // namespace diagd::tools
