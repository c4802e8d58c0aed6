// A reader thread takes snapshots while the run's worker processes calls.
// Run under ThreadSanitizer (`scripts/tsan`) to prove the tracker and trace
// are race-free; without it, the test still checks snapshot consistency.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "interceptor_fixture.h"

namespace diagd::harness {
namespace {

using testing::Args;
using testing::DocsInput;
using testing::InterceptorTest;

TEST_F(InterceptorTest, SnapshotsWhileCallsAreProcessedAreConsistent) {
  std::atomic<bool> done{false};
  std::atomic<int> snapshots{0};
  std::thread reader([&] {
    std::size_t last_completed = 0;
    while (!done.load()) {
      ProgressState state = tracker_.Snapshot();
      // The index only grows, and a pending call is always an indexed one.
      EXPECT_GE(state.completed.size(), last_completed);
      last_completed = state.completed.size();
      if (state.pending) {
        bool indexed = false;
        for (const auto& call : state.completed) indexed |= call.tool_call_id == state.pending->tool_call_id;
        EXPECT_TRUE(indexed);
      }
      trace_.Events();
      ++snapshots;
    }
  });
  while (snapshots.load() == 0) std::this_thread::yield();  // the reader is running
  std::string previous;
  for (int i = 0; i < 200; ++i) {
    std::string id = "call_" + std::to_string(i);
    ToolCallRequest call{id, "search_documents",
                         Args(DocsInput("q" + std::to_string(i)), previous,
                              previous.empty() ? "" : "GAINED")};
    tracker_.ResetProtocolViolations();
    interceptor_.HandleTurn(std::span(&call, 1));
    previous = id;
  }
  done = true;
  reader.join();
  EXPECT_GT(snapshots.load(), 0);
  EXPECT_EQ(tracker_.Snapshot().completed.size(), 10u) << "the budget admits 10 calls";
}

}  // namespace
}  // namespace diagd::harness
