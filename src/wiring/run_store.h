// The run store named by storage.runs.
#pragma once

#include <memory>

#include "app/run_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"

namespace diagd::wiring {

// `sqlite:PATH` opens (and migrates) a SQLite file; a URL this build cannot
// serve is an error naming the key.
Result<std::unique_ptr<app::RunStore>> OpenRunStore(const config::Config& config,
                                                    const Clock& clock);

}  // namespace diagd::wiring
