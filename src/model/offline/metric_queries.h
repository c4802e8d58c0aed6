// The metrics a run asks for (query_metrics, when it is offered), once the
// logs have shown where the failure is and the change record was looked
// for (metrics corroborate a cause; they never find one): few and
// deterministic.
//   1. every series of the suspected components, `{service=~"a|b"}`: the
//      topics of the failing chain (else those the question names), where
//      metrics carry a `service` label named like the log topics;
//   2. only when that matched nothing or Prometheus refused it: the series
//      whose names speak of saturation, latency or errors, whatever their
//      labels (raw counters and capacities left out).
// The window is the tool's default, or reaches half an hour before the
// onset when that lies further back than the default hour.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "model/offline/case_file.h"
#include "model/offline/investigation_state.h"
#include "model/offline/question_analysis.h"

namespace diagd::model::offline {

// At most this many metrics calls per run (protocol repairs aside).
inline constexpr std::size_t kMaxMetricsCalls = 2;

struct MetricsQuery {
  std::string promql;
  std::optional<int> lookback_minutes;
};

// The next metrics query to send, or nothing (metrics not offered, the
// logs not read yet, enough asked already).
std::optional<MetricsQuery> NextMetricsQuery(const InvestigationState& state,
                                             const QuestionAnalysis& analysis,
                                             const CaseFile& file);

// `{service=~"a|b"}` over `components`, regex characters escaped.
std::string ComponentSelector(const std::vector<std::string>& components);

// The series named like saturation, latency or errors.
std::string StrainSelector();

}  // namespace diagd::model::offline
