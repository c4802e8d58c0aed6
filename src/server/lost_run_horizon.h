// When a lease that ran out may be taken for its owner's death
// (docs/reliability.md promise 5).
//
// An owner renews its leases through the run store. While the store does
// not answer (stopped, stalled, unreachable, failing), no owner can renew,
// so a lease that runs out then says nothing about its owner. An instance
// therefore judges leases only by time in which it heard the store answer
// its upkeep: after a silence (no answer for half a lease; its own process
// stopped looks the same and is judged as carefully), for one lease after
// the store answers again only leases that ran out before the silence
// began are lost (those are the dead instances'), so that every owner has
// had a lease to renew. A renewal delayed past its lease by a stall is not
// judged: measured by this instance's monotonic clock, the stall is a
// silence whatever the store's clock or the renewal's timestamp say.
//
// Half a lease: the upkeep hears the store every third of one, so a silence
// of half a lease is never a healthy store; and an owner's lease outlives a
// shorter stall (it renewed at most a third of a lease before the stall
// began, and renews again at once after a round that waited on the store
// longer than a third of a lease: StoreUpkeep).
//
// Not thread-safe: the upkeep thread's own.
#pragma once

#include <chrono>
#include <optional>

#include "core/clock.h"

namespace diagd::server {

class LostRunHorizon {
 public:
  // `now` / `mono`: when the instance started, counted as an answer (what
  // happened before is unknown; a store that does not answer at start is
  // a silence from then).
  LostRunHorizon(std::chrono::milliseconds lease, WallTime now, MonoTime mono)
      : lease_(lease), last_answer_(now), last_answer_mono_(mono) {}

  // A store call of the upkeep came back at `now` / `mono`: answered (it
  // did what was asked) or not (a store error). Returns how long the store
  // was silent when this answer ends a silence.
  std::optional<std::chrono::milliseconds> Heard(bool answered, WallTime now, MonoTime mono);

  // Other instances' runs whose lease ended before the returned time are
  // lost; `now` when the store has answered steadily for a lease.
  WallTime Horizon(WallTime now, MonoTime mono) const;

 private:
  bool Silent(MonoTime mono) const;

  std::chrono::milliseconds lease_;
  WallTime last_answer_;
  MonoTime last_answer_mono_;
  bool unanswered_ = false;  // the last call got a store error
  // The last silence: when the store last answered before it, and when it
  // answered again (the lease after that is the owners' to renew).
  std::optional<WallTime> silence_began_;
  MonoTime answered_again_;
};

}  // namespace diagd::server
