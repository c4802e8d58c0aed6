// The store part of `diagd check`: the run store of storage.runs and, when
// storage.canonical is "redis://...", its Redis, looked at as `diagd serve`
// would open them but without writing to either (wiring/store_probes.h): a
// run store that serve would stop on, or a Redis that does not answer, is
// a problem row, so that "all well" means serve starts.
//
// Thread safety: pure functions apart from the I/O they make.
#pragma once

#include <vector>

#include "check/check.h"
#include "config/config.h"

namespace diagd::check {

// One row for storage.runs, and one for storage.canonical when it is on
// Redis. `progress` (optional) is told of each before it is looked at.
std::vector<CheckItem> CheckStores(const config::Config& config, CheckProgress* progress);

}  // namespace diagd::check
