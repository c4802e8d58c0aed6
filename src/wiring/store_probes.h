// The stores `diagd serve` would open (storage.runs, storage.canonical),
// looked at for `diagd check` without writing to either: a missing SQLite
// file is not created, no migration is applied, Redis is sent PING alone.
// Each answers one line for a person, or the error serve would stop on
// (store/store_probe.h). No message holds a password.
//
// Thread safety: pure functions apart from the I/O they make.
#pragma once

#include <string>

#include "config/config.h"
#include "core/result.h"

namespace diagd::wiring {

// storage.runs: what the run store holds, or why serve could not use it.
Result<std::string> ProbeRunStore(const config::Config& config);

// Whether storage.canonical is shared between instances (on Redis), where
// `diagd check` has something to reach.
bool HasSharedCanonicalStore(const config::Config& config);
// How a report names it: "redis://host:port/db", without credentials
// ("redis://" for a URL that does not parse).
std::string SharedCanonicalStoreName(const config::Config& config);
// Whether it answers.
Result<std::string> ProbeSharedCanonicalStore(const config::Config& config);

}  // namespace diagd::wiring
