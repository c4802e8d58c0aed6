// Identifiers for runs and conversations.
//
// Ids are 32 lowercase hex digits laid out like a UUIDv7: 48 bits of
// millisecond wall time, then random bits. They sort by creation time, which
// is what an operator listing runs expects, and are unguessable enough that
// one run's id does not reveal another's.
//
// Thread safety: safe for concurrent use (a random engine per thread).
#pragma once

#include <string>

#include "core/clock.h"

namespace diagd {

std::string NewId(const Clock& clock);

}  // namespace diagd
