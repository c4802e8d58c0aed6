// jemalloc's settings for the `diagd` binary (built in when DIAGD_JEMALLOC
// links it; MALLOC_CONF in the environment still overrides each one).
// Measured in docs/performance.md, "The allocator".
//
// - thp:always: the heap in transparent huge pages where the system allows
//   them (its THP mode `madvise` or `always`). Most of a fresh server's
//   kernel time under a burst of runs was faulting its heap in 4 KiB at a
//   time; a 2 MiB page is one fault. The price is coarser memory: a huge
//   page with one live object in it stays resident.
// - percpu_arena:percpu: an arena per CPU, so a worker allocates from the
//   one of the CPU it runs on; fewer arenas than jemalloc's default of four
//   per CPU, each with its own partly used huge pages.
// - dirty_decay_ms:-1, muzzy_decay_ms:-1: freed pages stay for the next run
//   instead of going back over ten seconds and faulting in again during a
//   burst; an idle server gives them all back at once
//   (runtime::RunExecutor::kTrimHeapAfterIdle, core::ReturnFreeHeap), as it does on
//   glibc's malloc.
// - lg_extent_max_active_fit:30: freed memory of any extent size may serve
//   a smaller allocation. jemalloc's default refuses to carve a block out
//   of a freed extent more than 64 times its size; with decay off, the
//   pages a burst freed coalesce into such extents and sat unused while the
//   next burst mapped new ones (RSS 0.9 GiB after one 30-event burst, 1.5
//   after the second; with this, 1.0).
extern "C" {
// The name jemalloc reads at its start; it must have external linkage.
const char* malloc_conf =
    "thp:always,percpu_arena:percpu,dirty_decay_ms:-1,muzzy_decay_ms:-1,"
    "lg_extent_max_active_fit:30";
}
