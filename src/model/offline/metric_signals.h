// What the metrics a run read say about the failure. A series is a signal
// when it measures saturation (active connections, a pool, threads, a
// queue), latency (a duration, a latency, a seconds quantile) or an error
// rate (errors, 5xx, failures), and it rose from its earlier level and
// stayed there, beginning at or before the failure's onset (give or take
// a few minutes): it shows *what* strained when the failure began, never
// *why*. A series that only begins at the onset, while the window reaches
// back before it, is a signal too: what it measures did not happen before
// (the latency of a query a release added). A signal is a finding, and corroborates a cause the logs, the
// change record or the runbooks name; it is never a cause by itself.
//
// Only a series' summary line and its label values are citable: a signal
// quotes its summary line, whole.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/offline/investigation_state.h"

namespace diagd::model::offline {

enum class SignalKind { kSaturation, kLatency, kErrorRate };

// The parts of a series summary line ("NAME{k=\"v\"}: first F at T1, last L
// at T2, min m, max M, largest change +D at T3"), numbers as written there.
struct SeriesSummary {
  std::string head;  // "NAME{k=\"v\", ...}", the series it names
  std::string first, first_time, last, last_time, min, max;
  std::string change, change_time;  // both empty for "largest change none"
};

// Nothing when `summary` has another shape.
std::optional<SeriesSummary> ParseSeriesSummary(std::string_view summary);

// The kind of strain a series measures, by its name (and, for a bare
// "seconds", its quantile label); nothing for anything else: a capacity
// (`*_max`, `*_limit`), a raw counter (`*_total`, `*_bucket`...), bytes.
std::optional<SignalKind> SignalKindOf(const SeriesItem& series);

struct MetricSignal {
  std::size_t call = 0;    // index in InvestigationState::calls
  std::size_t series = 0;  // index in that call's series
  SignalKind kind = SignalKind::kSaturation;
  std::string name;        // the series' __name__ (its summary head when none)
  std::string quote;       // its summary line
  std::string began;       // when it left its earlier level ("YYYY-MM-DD HH:MM:SS")
  // Its level before (empty: no samples before it began) and after, as
  // short numbers.
  std::string before, after;
  // The value of the series' capacity (the `*_max` series beside it with
  // the same labels) when the series reached it: a pool at its maximum.
  std::string limit;
  bool about_chain = false;  // a label value names a topic of the failing chain
};

// The minutes after the onset within which a rise still counts as
// beginning with the failure: metrics are sampled every step, logs are not.
inline constexpr long kSignalToleranceMinutes = 5;

// The signals among the series of every metrics call that returned
// evidence, in call and series order. `onset` ("YYYY-MM-DD HH:MM:SS", the
// failure first seen; empty when unknown, then any lasting rise counts);
// `chain_topics`: the topics of the failing chain.
std::vector<MetricSignal> FindMetricSignals(const InvestigationState& state,
                                            const std::string& onset,
                                            const std::vector<std::string>& chain_topics);

// A number as a statement writes it: up to 4 significant digits.
std::string ShortNumber(double value);

}  // namespace diagd::model::offline
