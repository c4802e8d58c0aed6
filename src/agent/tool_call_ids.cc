#include "agent/tool_call_ids.h"

#include <algorithm>

namespace diagd::agent {
namespace {

bool IsSafe(const std::string& id) {
  if (id.empty() || id.size() > ToolCallIdAssigner::kMaxIdChars) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.' || c == ':';
  });
}

}  // namespace

std::string ToolCallIdAssigner::Fresh() {
  std::string id;
  do {
    id = "call_" + std::to_string(next_++);
  } while (seen_.count(id) > 0);
  return id;
}

void ToolCallIdAssigner::Assign(std::vector<model::ToolCall>& calls) {
  for (auto& call : calls) {
    if (!IsSafe(call.id) || seen_.count(call.id) > 0) call.id = Fresh();
    seen_.insert(call.id);
  }
}

}  // namespace diagd::agent
