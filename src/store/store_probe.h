// What `diagd check` learns of the stores `diagd serve` would open
// (storage.runs and storage.canonical), without writing to either: a
// missing SQLite file is not created, no migration is applied, Redis is
// sent PING alone. Each answers one line for a person saying what it found,
// or the error `serve` would stop on (UNAVAILABLE: cannot be reached or
// used; FAILED_PRECONDITION: a file or schema diagd must not touch;
// INVALID_ARGUMENT: a URL this build cannot use). No message holds a
// password.
//
// Thread safety: pure functions apart from the I/O they make.
#pragma once

#include <string>

#include "core/result.h"

namespace diagd::store {

// storage.runs: "sqlite:PATH" (the file opens and is a run store of a
// schema this build knows, or its folder can take a new one) or
// "postgresql://..." (the server accepts the login; its schema version).
Result<std::string> ProbeRunStore(const std::string& url);

// storage.canonical = "redis://...": the server answers PING after AUTH
// and SELECT.
Result<std::string> ProbeRedis(const std::string& url);

}  // namespace diagd::store
