#include "tools/tool_check.h"

#include <algorithm>
#include <utility>

namespace diagd::tools {

std::string FillAdvice(std::string_view advice, const AdviceValues& values) {
  std::string out;
  out.reserve(advice.size() + 64);
  for (std::size_t i = 0; i < advice.size();) {
    if (advice[i] == '{') {
      std::size_t close = advice.find('}', i);
      // Only {identifier} is a placeholder; JSON braces in a text stay.
      if (close != std::string_view::npos) {
        std::string name(advice.substr(i + 1, close - i - 1));
        bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || c == '_';
        });
        if (auto it = values.find(name); identifier && it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += advice[i++];
  }
  return out;
}

CheckRow Problem(CheckRow row, std::string detail, const AdviceEntry& entry,
                 const AdviceValues& values) {
  row.ok = false;
  row.detail = std::move(detail);
  row.advice = FillAdvice(entry.advice, values);
  return row;
}

std::string Plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace diagd::tools
