#include <cstddef>
#include <string>
#include <utility>

#include "config/config_parse.h"

namespace diagd::config::internal {
namespace {

// Past this many, the rest of the problems are counted rather than listed: a
// wrong file (not a diagd config at all) must not flood the terminal.
constexpr std::size_t kMaxListedProblems = 20;

}  // namespace

void KeyLocations::SetLine(const std::string& key, int line) { where_[key] = At(line) + key; }

void KeyLocations::SetVariable(const std::string& key, const std::string& variable) {
  where_[key] = variable;
}

std::string KeyLocations::Label(const std::string& key) const {
  auto it = where_.find(key);
  return it == where_.end() ? key : it->second;
}

std::string KeyLocations::At(int line) const {
  if (line <= 0) return source_name_ + ": ";
  return source_name_ + ":" + std::to_string(line) + ": ";
}

void Problems::Add(std::string label, std::string_view problem) {
  lines_.push_back(std::move(label) + ": " + std::string(problem));
}

Status Problems::ToStatus() const {
  if (lines_.empty()) return OkStatus();
  std::string message;
  for (std::size_t i = 0; i < lines_.size() && i < kMaxListedProblems; ++i) {
    if (i > 0) message += "\n";
    message += lines_[i];
  }
  if (lines_.size() > kMaxListedProblems) {
    message += "\n... and " + std::to_string(lines_.size() - kMaxListedProblems) + " more";
  }
  return Error::InvalidArgument(std::move(message));
}

void Layer(const EndpointOverride& layer, ModelEndpoint& endpoint) {
  if (layer.provider) endpoint.provider = *layer.provider;
  if (layer.base_url) endpoint.base_url = *layer.base_url;
  if (layer.api_key) endpoint.api_key = *layer.api_key;
  if (layer.name) endpoint.name = *layer.name;
  if (layer.timeout_seconds) endpoint.timeout_seconds = *layer.timeout_seconds;
  if (layer.max_attempts) endpoint.max_attempts = *layer.max_attempts;
  if (layer.replay_reasoning) endpoint.replay_reasoning = *layer.replay_reasoning;
}

}  // namespace diagd::config::internal
