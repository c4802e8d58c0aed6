// The canonical invocation store: the truth about every executed tool call,
// keyed by (run id, tool call id). Evidence checks, the progress snapshot and
// the user's process are all read from here, never from model context.
//
// The interface lives with the tools (its consumers); the in-memory
// implementation is below, Redis lives in store/.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/result.h"
#include "tools/scope.h"
#include "tools/tool_result.h"

namespace diagd::tools {

struct CanonicalRecord {
  std::string run_id;
  std::string tool_call_id;
  ToolName tool;
  std::string request_json;  // the full business request
  std::string raw_response;  // what the backend returned, size-capped
  bool raw_response_truncated = false;
  Scope scope;
  ToolResult result;  // canonical; evidence_status ERROR for a failed call
  std::optional<ToolErrorCode> error_code;
  std::string error_message;  // QUERY_FAILED only: bounded and credential-free
};

// What the harness reads of an executed call (its harness view,
// docs/specs/tool-contracts.md): status, counts, truncation, relevance and scope identity. Derived
// from the same canonical record as the model observation; never shown to
// the model.
struct ControlView {
  EvidenceStatus evidence_status = EvidenceStatus::kError;
  std::size_t returned_count = 0;
  bool truncated = false;
  std::optional<RelevanceLevel> relevance_level;
  const Scope* scope = nullptr;  // borrowed from the record
};
ControlView ControlViewOf(const CanonicalRecord& record);

// Implementations are safe for concurrent use.
class CanonicalInvocationStore {
 public:
  virtual ~CanonicalInvocationStore() = default;
  // Stores `record` under (record.run_id, record.tool_call_id), replacing any
  // earlier one.
  virtual Status Put(CanonicalRecord record) = 0;
  // The record, or nothing when it was never stored or has expired. An error
  // only when the store itself failed.
  virtual Result<std::optional<CanonicalRecord>> Get(const std::string& run_id,
                                                     const std::string& tool_call_id) = 0;
  // Shows `read` the record, or nullptr when Get would find none, without
  // the copy Get makes where the store holds it in memory (at 30 log events
  // a run's records are 200 KiB, and each run reads them all back for its
  // progress). `read` must not use the store. An error, and no call, only
  // when the store itself failed. By default, a Get.
  using RecordReader = std::function<void(const CanonicalRecord*)>;
  virtual Status Read(const std::string& run_id, const std::string& tool_call_id,
                      const RecordReader& read);
  // The run is finished and stored: nothing reads its records any more.
  // A store private to this process frees them now (a server finishing
  // many runs an hour must not hold each for the whole TTL); a shared one
  // may leave them to their TTL.
  virtual void ForgetRun(const std::string& run_id) = 0;
};

// Records live for `ttl` after they are put, or until their run is
// forgotten. Expired records are dropped lazily, on later puts.
class MemoryCanonicalStore final : public CanonicalInvocationStore {
 public:
  MemoryCanonicalStore(std::chrono::seconds ttl, const Clock& clock) : ttl_(ttl), clock_(clock) {}

  Status Put(CanonicalRecord record) override;
  Result<std::optional<CanonicalRecord>> Get(const std::string& run_id,
                                             const std::string& tool_call_id) override;
  // `read` runs under the store's lock.
  Status Read(const std::string& run_id, const std::string& tool_call_id,
              const RecordReader& read) override;
  void ForgetRun(const std::string& run_id) override;

  std::size_t SizeForTest();

 private:
  using Key = std::pair<std::string, std::string>;  // (run id, tool call id)
  using Expiry = std::multimap<MonoTime, Key>;
  struct Entry {
    CanonicalRecord record;
    MonoTime expires;
    Expiry::iterator expiry;  // its one node in expiry_
  };
  void DropExpired(MonoTime now) REQUIRES(mu_);

  const std::chrono::seconds ttl_;
  const Clock& clock_;
  Mutex mu_;
  std::map<Key, Entry> entries_ GUARDED_BY(mu_);
  Expiry expiry_ GUARDED_BY(mu_);  // exactly one node per entry
};

}  // namespace diagd::tools
