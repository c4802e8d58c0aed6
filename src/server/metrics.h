// The server's Prometheus metrics (docs/server.md, `GET /metrics`):
// counters and the run duration histogram kept here, gauges supplied by the
// server when it renders. Everything about a run is derived from its finished
// `RunRecord` (status, release outcome, fallback code and trace), so the
// metrics and `GET /api/v1/runs/{id}` can never disagree.
//
// Every metric name starts with `diagd_`. Label values come from closed sets
// (statuses, codes, tool and component names, route patterns); as a guard
// against a caller passing open-ended values (a raw path with ids), each value
// is cut to `kMaxLabelValueChars` code points and each family holds at most
// `kMaxSeriesPerFamily` label sets, after which new ones are counted under the
// label values "OTHER".
//
// Thread safety: all methods are safe for concurrent use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_store.h"
#include "core/mutex.h"

namespace diagd::server {

class ServerMetrics {
 public:
  // Point-in-time values the server owns; read by the caller just before
  // `Render`, so they are never stale copies kept here.
  struct Gauges {
    std::int64_t runs_running = 0;      // diagd_runs_running
    std::int64_t runs_queued = 0;       // diagd_run_queue_depth
    std::int64_t connections_open = 0;  // diagd_http_connections_open
    std::int64_t sse_streams_open = 0;  // diagd_sse_streams_open
    // The run store (app::ObservedRunStore, app::RunRecordWriter):
    std::int64_t store_failing = 0;       // diagd_run_store_failing: 1 while its last call failed
    std::int64_t store_errors_total = 0;  // diagd_run_store_errors_total
    std::int64_t runs_unstored = 0;       // diagd_runs_unstored: finished, waiting to be stored
    std::int64_t runs_lost_total = 0;     // diagd_runs_lost_total: ended as INSTANCE_LOST here
  };

  // Upper bounds (seconds, inclusive) of diagd_run_duration_seconds; +Inf is
  // implied. Runs take from a tenth of a second (a chat turn) to minutes.
  static constexpr std::array<double, 10> kRunDurationBuckets = {0.25, 0.5, 1,  2.5, 5,
                                                                 10,   30,  60, 120, 300};
  static constexpr std::size_t kMaxLabelValueChars = 128;
  static constexpr std::size_t kMaxSeriesPerFamily = 512;

  // Counts one finished run: diagd_runs_total, diagd_run_duration_seconds and,
  // from its trace, diagd_tool_calls_total, diagd_tool_requests_rejected_total,
  // diagd_model_calls_total and diagd_model_tokens_total, and from its
  // failed model calls diagd_model_failures_total. Call once per run,
  // when it is finished. A negative or NaN duration is observed as 0.
  void RecordFinishedRun(const app::RunRecord& run, double duration_seconds) EXCLUDES(mu_);

  // Counts a chat request refused before a run started (`reason` e.g.
  // "OVERLOADED", "SHUTTING_DOWN"): diagd_chat_rejected_total.
  void RecordRejectedChat(std::string_view reason) EXCLUDES(mu_);

  // Counts one answered HTTP request: diagd_http_requests_total.
  // REQUIRES: `route` is a route pattern ("/api/v1/runs/{id}"), never a raw
  // path holding ids.
  void RecordHttpRequest(std::string_view route, int status) EXCLUDES(mu_);

  // All families in Prometheus text exposition format 0.0.4, in a fixed
  // order, each with HELP and TYPE (also before its first sample), series
  // sorted by label values. Serve as `text/plain; version=0.0.4`.
  std::string Render(const Gauges& gauges) const EXCLUDES(mu_);

 private:
  // Label values in the family's label order -> count; the map keeps series
  // sorted for rendering.
  using Series = std::map<std::vector<std::string>, std::uint64_t>;

  void Add(Series& series, std::vector<std::string> label_values, std::uint64_t amount)
      REQUIRES(mu_);
  void Observe(double seconds) REQUIRES(mu_);

  mutable Mutex mu_;
  Series runs_ GUARDED_BY(mu_);             // status, outcome, fallback_code
  Series tool_calls_ GUARDED_BY(mu_);       // tool, status
  Series tool_rejections_ GUARDED_BY(mu_);  // error_code
  Series model_calls_ GUARDED_BY(mu_);      // component
  Series model_tokens_ GUARDED_BY(mu_);     // component, kind
  Series model_failures_ GUARDED_BY(mu_);   // component, reason
  Series chat_rejections_ GUARDED_BY(mu_);  // reason
  Series http_requests_ GUARDED_BY(mu_);    // route, code
  // Per bucket, not cumulative; the last one is +Inf.
  std::array<std::uint64_t, kRunDurationBuckets.size() + 1> duration_buckets_ GUARDED_BY(mu_){};
  double duration_sum_ GUARDED_BY(mu_) = 0;
  std::uint64_t duration_count_ GUARDED_BY(mu_) = 0;
};

}  // namespace diagd::server
