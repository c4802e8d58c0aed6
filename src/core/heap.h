// The process heap, whichever allocator serves it: glibc's malloc, or
// jemalloc, which the `diagd` binary is linked with (src/cli/allocator.cc;
// docs/performance.md, "The allocator").
#pragma once

namespace diagd::core {

// Hands the heap's free pages back to the system now, instead of when the
// allocator itself would (glibc: only each arena's top, ever; jemalloc as
// the binary sets it up: never, it keeps them for the next run). The
// allocator is the one the process runs on, found at run time: jemalloc's
// when its `mallctl` is linked or preloaded, else glibc's `malloc_trim`.
// Costs a pass over the heap; for a server that has gone idle, not for a
// hot path.
void ReturnFreeHeap();

}  // namespace diagd::core
