// One server of a kind per test program (PostgreSQL, Redis), started on
// first use and stopped at exit: the tests of one program share it, each in
// a database or key space of its own. A server that failed to start is not
// tried again; every later caller gets the same error, so a machine without
// the server skips (or, where required, fails) every test alike.
//
// Thread safety: safe to call from any test thread.
#pragma once

#include <memory>
#include <mutex>

#include "core/result.h"

namespace diagd::testing {

// `Server::Start()` returns Result<std::unique_ptr<Server>>. `revive`, when
// given, runs under the lock on every later call, so a test that stopped the
// shared server and failed before restarting it does not take the rest of
// the program down with it.
template <typename Server>
Result<Server*> StartedOnce(Status (*revive)(Server&) = nullptr) {
  struct State {
    std::mutex mu;
    bool tried = false;
    std::unique_ptr<Server> server;  // destroyed at exit, which stops it
    Error error;
  };
  static State state;
  std::lock_guard lock(state.mu);
  if (!state.tried) {
    state.tried = true;
    auto started = Server::Start();
    if (started) {
      state.server = std::move(*started);
    } else {
      state.error = started.error();
    }
  }
  if (state.server == nullptr) return state.error;
  if (revive != nullptr) {
    if (Status revived = revive(*state.server); !revived) return revived.error();
  }
  return state.server.get();
}

}  // namespace diagd::testing
