// core::ReturnFreeHeap on the allocator the test binary runs on: glibc's
// malloc in core_tests, jemalloc with the `diagd` binary's settings in
// heap_jemalloc_tests (built when the binary is linked with it: DIAGD_JEMALLOC).
#include "core/heap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "testing/proc_status.h"

namespace diagd::core {
namespace {

long ResidentKiB() { return diagd::testing::ProcStatus(::getpid(), "VmRSS:"); }

TEST(Heap, FreedPagesGoBackToTheSystemAtOnce) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator serves this build, and keeps freed memory on purpose";
#endif
  // 64 MiB in 64 KiB blocks, every page touched, then all freed but a block
  // allocated after them: what a burst of runs leaves behind. Neither
  // allocator hands that back by itself (glibc returns only the top of an
  // arena, which the last block holds; jemalloc as the binary sets it up
  // keeps freed pages for the next burst).
  constexpr std::size_t kBlock = 64 << 10;
  constexpr int kBlocks = 1024;
  constexpr long kBurstKiB = kBlocks * (kBlock >> 10);
  long before = ResidentKiB();
  std::vector<char*> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    auto* block = static_cast<char*>(std::malloc(kBlock));
    ASSERT_NE(block, nullptr);
    std::memset(block, 1, kBlock);
    blocks.push_back(block);
  }
  auto* last = static_cast<char*>(std::malloc(kBlock));
  std::memset(last, 1, kBlock);
  long peak = ResidentKiB();
  ASSERT_GE(peak - before, kBurstKiB * 3 / 4);
  for (char* block : blocks) std::free(block);
  long freed = ResidentKiB();
  ASSERT_GE(freed - before, kBurstKiB / 2)
      << "the allocator gave the freed pages back by itself: this test no longer shows the call's "
         "work (RSS before " << before << " KiB, peak " << peak << ", after free " << freed << ")";

  ReturnFreeHeap();
  long returned = ResidentKiB();
  EXPECT_LE(returned - before, kBurstKiB / 4)
      << "RSS before " << before << " KiB, peak " << peak << ", after free " << freed
      << ", after ReturnFreeHeap " << returned;
  std::free(last);
}

}  // namespace
}  // namespace diagd::core
