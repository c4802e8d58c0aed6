// The normalized scope of a tool request (docs/specs/progress-protocol.md).
#pragma once

#include <string>

namespace diagd::tools {

struct Scope {
  // Deterministic identity: two requests of one tool repeat each other exactly
  // when their identities are equal. Harness-only; never shown to the model.
  std::string identity;
  // A short, user-safe summary for process lists and traces (never full SQL
  // parameters).
  std::string summary;
};

}  // namespace diagd::tools
