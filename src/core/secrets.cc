#include "core/secrets.h"

#include <cctype>

namespace diagd {

std::string ScrubCredentials(std::string message, std::string_view secret) {
  message = ScrubSecret(std::move(message), secret);
  // Replaces the run of token characters starting at each `marker`.
  // (`sk-` only where a word starts: "disk-full" is no key).
  auto scrub_after = [&message](std::string_view marker, std::size_t min_length) {
    auto is_token = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' ||
             c == '.' || c == '=' || c == '+' || c == '/' || c == '*';  // '*': a masked echo
    };
    for (std::size_t at = message.find(marker); at != std::string::npos;
         at = message.find(marker, at + 1)) {
      if (at > 0 && std::isalnum(static_cast<unsigned char>(message[at - 1])) != 0) continue;
      std::size_t begin = at + marker.size();
      std::size_t end = begin;
      while (end < message.size() && is_token(message[end])) ++end;
      if (end - begin >= min_length) message.replace(begin, end - begin, "***");
    }
  };
  scrub_after("Bearer ", 1);
  scrub_after("bearer ", 1);
  scrub_after("sk-", 8);
  return message;
}

std::string ScrubSecret(std::string message, std::string_view secret) {
  if (secret.empty()) return message;
  for (std::size_t at = message.find(secret); at != std::string::npos;
       at = message.find(secret, at + 3)) {
    message.replace(at, secret.size(), "***");
  }
  return message;
}

}  // namespace diagd
