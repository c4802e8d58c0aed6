// jemalloc's settings for the `diagd` binary (built in when DIAGD_JEMALLOC
// links it; MALLOC_CONF in the environment still overrides each one).
//
// - thp:always: the heap in transparent huge pages where the system allows
//   them (its THP mode `madvise` or `always`). Most of a fresh server's
//   kernel time under a burst was faulting in the heap 4 KiB at a time; a
//   2 MiB page is one fault (docs/performance.md, eighth sitting).
// - background_thread:true, max_background_threads:1: freed pages go back
//   to the system on one thread of jemalloc's, over its decay time (ten
//   seconds), instead of only when some allocation happens to purge; an
//   idle server also hands back everything free at once (core::ReturnFreeHeap).
extern "C" {
// The name jemalloc reads; it must have external linkage.
// NOLINTNEXTLINE(readability-identifier-naming)
const char* malloc_conf = "thp:always,background_thread:true,max_background_threads:1";
}
