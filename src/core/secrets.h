// Keeping secrets out of text that is shown, logged or stored: a provider's
// error message, a failure detail, a check's report.
#pragma once

#include <string>
#include <string_view>

namespace diagd {

// `message` with every occurrence of `secret` replaced by "***" (unchanged
// when `secret` is empty).
std::string ScrubSecret(std::string message, std::string_view secret);

// `message` with `secret` and anything shaped like a credential replaced by
// "***": the word after "Bearer ", and `sk-` keys (OpenAI, DeepSeek,
// DashScope) a provider may echo back.
std::string ScrubCredentials(std::string message, std::string_view secret);

}  // namespace diagd
