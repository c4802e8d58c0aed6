// The run record as an operator reads it (CONTRACT.md section 6): from
// `diagd runs show` and GET /api/v1/runs/{id}; and the run list.
#pragma once

#include <string>
#include <vector>

#include "app/run_store.h"

namespace diagd::app {

std::string RunRecordJson(const RunRecord& run);
std::string RunListJson(const std::vector<RunSummary>& runs);

}  // namespace diagd::app
