#include "server/shared_run_events.h"

namespace diagd::server {

void SharedRunEvents::Share(const app::RunEvent& event) {
  if (ended_elsewhere_ || run_id_.empty()) return;
  unshared_.push_back(event);
  if (!record_given_) {
    Status appended = runs_.AppendEvents(run_id_, unshared_);
    if (!appended) {
      // Another instance ended the run as lost while it went on here: the
      // stream that stands is that one, which nothing here may add to.
      if (appended.error().code == ErrorCode::kFailedPrecondition) {
        ended_elsewhere_ = true;
        unshared_.clear();
      }
      return;  // not stored yet (or the store failed): tried with the next
    }
  }
  Publish();
}

void SharedRunEvents::RecordGiven() {
  record_given_ = true;
  if (!ended_elsewhere_) Publish();
}

void SharedRunEvents::Publish() {
  for (const app::RunEvent& event : unshared_) bus_.PublishEvent(run_id_, event);
  unshared_.clear();
}

}  // namespace diagd::server
