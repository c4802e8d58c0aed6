// A run bus in this process (app/run_bus.h), for servers of one test that
// stand for several instances: what one end publishes every started end
// hears, in order, from a thread of its own, as from Redis. The hub can be
// taken down and brought back, as Redis can: while down every message is
// lost and every end hears that its subscription went down.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "app/run_bus.h"

namespace diagd::server::testing {

class MemoryRunBus;

class MemoryRunBusHub {
 public:
  // A new end on this hub; the hub must outlive it.
  std::unique_ptr<MemoryRunBus> NewEnd();
  void SetUp(bool up);
  int published() const;  // messages the hub took while up

 private:
  friend class MemoryRunBus;
  struct Message {
    bool cancel = false;
    std::string run_id;
    app::RunEvent event;
  };
  bool Publish(const Message& message);
  void Remove(MemoryRunBus* end);

  mutable std::mutex mu_;
  std::vector<MemoryRunBus*> ends_;  // started ones
  bool up_ = true;
  int published_ = 0;
};

class MemoryRunBus final : public app::RunBus {
 public:
  explicit MemoryRunBus(MemoryRunBusHub& hub) : hub_(hub) {}
  ~MemoryRunBus() override { Stop(); }

  void PublishEvent(const std::string& run_id, const app::RunEvent& event) override;
  Status PublishCancel(const std::string& run_id) override;
  void Start(Listener listener) override;
  void Stop() override;
  bool up() const override;
  std::uint64_t generation() const override;

 private:
  friend class MemoryRunBusHub;
  struct Item {
    std::optional<bool> state;  // a change of the hub's state, else a message
    MemoryRunBusHub::Message message;
  };
  void Enqueue(Item item);
  void Deliver();

  MemoryRunBusHub& hub_;
  Listener listener_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  bool up_ = false;
  std::uint64_t generation_ = 0;
  std::thread thread_;
};

}  // namespace diagd::server::testing
