#include "server/memory_run_bus.h"

#include <algorithm>

namespace diagd::server::testing {

std::unique_ptr<MemoryRunBus> MemoryRunBusHub::NewEnd() {
  return std::make_unique<MemoryRunBus>(*this);
}

void MemoryRunBusHub::SetUp(bool up) {
  std::lock_guard lock(mu_);
  up_ = up;
  for (MemoryRunBus* end : ends_) end->Enqueue({up, {}});
}

int MemoryRunBusHub::published() const {
  std::lock_guard lock(mu_);
  return published_;
}

bool MemoryRunBusHub::Publish(const Message& message) {
  std::lock_guard lock(mu_);
  if (!up_) return false;
  ++published_;
  for (MemoryRunBus* end : ends_) end->Enqueue({std::nullopt, message});
  return true;
}

void MemoryRunBusHub::Remove(MemoryRunBus* end) {
  std::lock_guard lock(mu_);
  ends_.erase(std::remove(ends_.begin(), ends_.end(), end), ends_.end());
}

void MemoryRunBus::PublishEvent(const std::string& run_id, const app::RunEvent& event) {
  (void)hub_.Publish({false, run_id, event});  // lost while down, as with Redis
}

Status MemoryRunBus::PublishCancel(const std::string& run_id) {
  if (!hub_.Publish({true, run_id, {}})) return Error::Unavailable("run bus: the hub is down");
  return OkStatus();
}

void MemoryRunBus::Start(Listener listener) {
  listener_ = std::move(listener);
  {
    std::lock_guard hub_lock(hub_.mu_);
    hub_.ends_.push_back(this);
    Enqueue({hub_.up_, {}});
  }
  thread_ = std::thread([this] { Deliver(); });
}

void MemoryRunBus::Stop() {
  hub_.Remove(this);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool MemoryRunBus::up() const {
  std::lock_guard lock(mu_);
  return up_;
}

std::uint64_t MemoryRunBus::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

void MemoryRunBus::Enqueue(Item item) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(item));
  }
  wake_.notify_all();
}

void MemoryRunBus::Deliver() {
  while (true) {
    Item item;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      item = std::move(queue_.front());
      queue_.pop_front();
      if (item.state) {
        if (*item.state == up_) continue;
        up_ = *item.state;
        if (up_) ++generation_;
      }
    }
    if (item.state) {
      if (listener_.on_state) listener_.on_state(*item.state);
    } else if (item.message.cancel) {
      if (listener_.on_cancel) listener_.on_cancel(item.message.run_id);
    } else if (listener_.on_event) {
      listener_.on_event(item.message.run_id, item.message.event);
    }
  }
}

}  // namespace diagd::server::testing
