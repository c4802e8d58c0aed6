#include "harness/stop_reason.h"

#include <gtest/gtest.h>

namespace diagd::harness {
namespace {

std::exception_ptr Wrapped(int depth) {
  try {
    try {
      throw CollectionStoppedError(StopReason::kInformationSaturated);
    } catch (...) {
      if (depth >= 1) std::throw_with_nested(std::runtime_error("agent loop failed"));
      throw;
    }
  } catch (...) {
    if (depth < 2) return std::current_exception();
    try {
      std::throw_with_nested(std::logic_error("tool callback failed"));
    } catch (...) {
      return std::current_exception();
    }
  }
}

TEST(CollectionStopped, IsRecognisedThroughAnyWrapping) {
  for (int depth : {0, 1, 2}) {
    EXPECT_EQ(FindCollectionStopped(Wrapped(depth)), StopReason::kInformationSaturated) << depth;
  }
}

TEST(CollectionStopped, OtherFailuresAreNotAStop) {
  EXPECT_FALSE(FindCollectionStopped(std::make_exception_ptr(std::runtime_error("boom"))));
  EXPECT_FALSE(FindCollectionStopped(nullptr));
}

}  // namespace
}  // namespace diagd::harness
