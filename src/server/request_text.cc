#include "server/request_text.h"

#include "app/run_store.h"
#include "core/percent_decode.h"

namespace diagd::server {
namespace {

std::optional<std::string> Decode(std::string_view text, bool plus_is_space) {
  std::optional<std::string> decoded = PercentDecode(text, plus_is_space);
  if (!decoded || !app::IsStorableText(*decoded)) return std::nullopt;
  return decoded;
}

}  // namespace

std::optional<std::string> DecodePathSegment(std::string_view segment) {
  return Decode(segment, false);
}

std::optional<std::string> DecodeQueryValue(std::string_view value) {
  return Decode(value, true);
}

}  // namespace diagd::server
