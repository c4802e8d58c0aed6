#include "app/run_store.h"

#include "core/text.h"

namespace diagd::app {

bool IsStorableText(std::string_view text) {
  return text.find('\0') == std::string_view::npos && text::IsValidUtf8(text);
}

}  // namespace diagd::app
