#include "server/request_text.h"

#include "app/run_store.h"
#include "core/text.h"

namespace diagd::server {
namespace {

std::optional<std::string> Decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = text::HexValue(text[i + 1]);
      int low = text::HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += c;
    }
  }
  if (!app::IsStorableText(out)) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::string> DecodePathSegment(std::string_view segment) {
  return Decode(segment, false);
}

std::optional<std::string> DecodeQueryValue(std::string_view value) {
  return Decode(value, true);
}

}  // namespace diagd::server
