// The run store named by storage.runs.
#pragma once

#include <memory>

#include "app/run_bus.h"
#include "app/run_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"

namespace diagd::wiring {

// `sqlite:PATH` opens (and migrates) a SQLite file; a URL this build cannot
// serve is an error naming the key.
Result<std::unique_ptr<app::RunStore>> OpenRunStore(const config::Config& config,
                                                    const Clock& clock);

// How the instances of one service tell each other about runs (docs/deploy.md):
// with storage.canonical = "redis://...", a bus on that Redis (it
// dials in the background, so an instance starts while Redis is down);
// null with "memory:" (one instance alone).
Result<std::unique_ptr<app::RunBus>> OpenRunBus(const config::Config& config);

}  // namespace diagd::wiring
