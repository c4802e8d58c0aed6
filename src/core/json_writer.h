// A streaming JSON writer for the hot paths (observations, canonical
// results): no document is built, nothing is allocated but the output. The
// caller keeps the nesting balanced; keys and strings must be UTF-8.
//
// Thread safety: one writer per thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace diagd::json {

class JsonWriter {
 public:
  explicit JsonWriter(std::size_t reserve = 1024);
  // Goes on writing `out`, a document that Take() returned with `depth`
  // containers still open, the innermost holding `has_items` (a comma then
  // comes before the next value): for appending to a document kept open.
  JsonWriter(std::string out, std::size_t depth, bool has_items)
      : out_(std::move(out)), needs_comma_(depth, true) {
    if (depth > 0) needs_comma_.back() = has_items;
  }

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Appends `json`, which must be one complete, valid JSON value (for
  // embedding a document that is already serialized).
  JsonWriter& Raw(std::string_view json);

  // What has been written so far.
  const std::string& str() const { return out_; }
  // How many containers are open.
  std::size_t depth() const { return needs_comma_.size(); }
  // The output.
  std::string Take();

 private:
  void Separate();

  std::string out_;
  // Per open container: whether the next value needs a comma before it.
  std::vector<bool> needs_comma_;
  bool after_key_ = false;
};

// Appends `s` as a JSON string literal (quotes, backslashes and control
// characters escaped; other bytes as is).
void AppendEscaped(std::string_view s, std::string& out);
// The inverse of AppendEscaped for a literal it wrote (and JSON's `\/`):
// appends the text to `out`. False, `out` then unspecified, for what is
// not one: no quotes at the ends, a \u escape past ASCII (which a full
// JSON reader must decode), an unknown escape. Nothing else is checked.
bool ReadEscaped(std::string_view literal, std::string& out);
// Appends `d` in its shortest round-trip form ("0.5", "42"); null when not
// finite.
void AppendDouble(double d, std::string& out);

}  // namespace diagd::json
