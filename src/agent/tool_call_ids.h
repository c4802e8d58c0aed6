// Makes the tool call ids of one run unique and safe. A provider may leave an
// id out, repeat one within the run, or send one no observation should echo
// (too long, odd characters); such ids are replaced by `call_<n>` before the
// assistant message enters the history, so the history, the observations and
// the canonical store all use the same id.
//
// One per run; not thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/chat_model.h"

namespace diagd::agent {

class ToolCallIdAssigner {
 public:
  static constexpr std::size_t kMaxIdChars = 64;
  void Assign(std::vector<model::ToolCall>& calls);

 private:
  std::string Fresh();
  std::set<std::string> seen_;
  int next_ = 1;
};

}  // namespace diagd::agent
