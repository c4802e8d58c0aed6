#include "server/lost_run_horizon.h"

#include <algorithm>

namespace diagd::server {

bool LostRunHorizon::Silent(MonoTime mono) const {
  return unanswered_ || mono - last_answer_mono_ > lease_ / 2;
}

std::optional<std::chrono::milliseconds> LostRunHorizon::Heard(bool answered, WallTime now,
                                                               MonoTime mono) {
  if (!answered) {
    unanswered_ = true;
    return std::nullopt;
  }
  std::optional<std::chrono::milliseconds> silence;
  if (Silent(mono)) {
    // A silence while the owners still renew after the last one reaches
    // back to that one's beginning.
    bool settling = silence_began_ && last_answer_mono_ < answered_again_ + lease_;
    silence_began_ = settling ? std::min(*silence_began_, last_answer_) : last_answer_;
    answered_again_ = mono;
    silence = std::chrono::duration_cast<std::chrono::milliseconds>(mono - last_answer_mono_);
  }
  unanswered_ = false;
  last_answer_ = now;
  last_answer_mono_ = mono;
  return silence;
}

WallTime LostRunHorizon::Horizon(WallTime now, MonoTime mono) const {
  if (Silent(mono)) return std::min(now, last_answer_);
  if (silence_began_ && mono < answered_again_ + lease_) return std::min(now, *silence_began_);
  return now;
}

}  // namespace diagd::server
