// Trace events of a run (docs/run-store.md): the decisions the harness
// made, in order, with bounded scalar fields. No event holds a prompt, a
// model thought, a raw tool response, full SQL parameters, a budget remainder
// or exception text; callers only ever pass the fields the contract lists.
//
// Thread safety: recorders are safe for concurrent use (the server reads a
// run's trace while the run writes it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"

namespace diagd::harness {

enum class TraceEventType {
  kRunStarted,
  kModelCall,
  kToolCallCompleted,
  kToolRequestRejected,
  kProgressEvaluated,
  kCollectionStopped,
  kProgressRecordUnverified,  // diagd's own type: a completed call whose record is no fact
  kAgentOutputRejected,
  kReleaseDecided,
  kRunFinished,
};
inline constexpr TraceEventType kAllTraceEventTypes[] = {
    TraceEventType::kRunStarted,          TraceEventType::kModelCall,
    TraceEventType::kToolCallCompleted,   TraceEventType::kToolRequestRejected,
    TraceEventType::kProgressEvaluated,   TraceEventType::kCollectionStopped,
    TraceEventType::kProgressRecordUnverified, TraceEventType::kAgentOutputRejected,
    TraceEventType::kReleaseDecided,      TraceEventType::kRunFinished};
const char* TraceEventTypeString(TraceEventType type);
// The type named `name` ("MODEL_CALL"...), for reading stored traces back.
std::optional<TraceEventType> ParseTraceEventType(std::string_view name);

using TraceValue = std::variant<std::nullptr_t, bool, std::int64_t, std::string>;

struct TraceField {
  std::string key;
  TraceValue value;
};

struct TraceEvent {
  std::int64_t seq = 0;  // 1, 2, 3... within the run
  TraceEventType type = TraceEventType::kRunStarted;
  WallTime time;
  std::vector<TraceField> fields;
};

// The value of `event`'s field `key`; nullptr when it has none (for
// readers of stored traces: metrics, the eval's timeline).
const TraceValue* FindField(const TraceEvent& event, std::string_view key);

class TraceRecorder {
 public:
  virtual ~TraceRecorder() = default;
  virtual void Record(TraceEventType type, std::vector<TraceField> fields) = 0;
};

// Keeps a run's events in memory, numbered in order, string values cut to
// `kMaxTraceStringChars`.
class InMemoryTrace final : public TraceRecorder {
 public:
  static constexpr std::size_t kMaxTraceStringChars = 256;

  explicit InMemoryTrace(const Clock& clock) : clock_(clock) {}
  void Record(TraceEventType type, std::vector<TraceField> fields) override;
  std::vector<TraceEvent> Events() const;

 private:
  const Clock& clock_;
  mutable Mutex mu_;
  std::vector<TraceEvent> events_ GUARDED_BY(mu_);
};

// "TYPE key=value key=value" per event, one per line: what tests compare.
std::string RenderTrace(const std::vector<TraceEvent>& events);

}  // namespace diagd::harness
