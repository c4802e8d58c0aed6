#include "core/heap.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>

namespace diagd::core {
namespace {

using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);

// jemalloc's control entry, when the process runs on jemalloc. Looked up
// rather than declared: the library is linked into the `diagd` binary only,
// and tests and benchmarks run on glibc's malloc.
Mallctl JemallocControl() {
  static const Mallctl control =
      reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"));
  return control;
}

}  // namespace

void ReturnFreeHeap() {
  if (Mallctl control = JemallocControl()) {
    // 4096 is MALLCTL_ARENAS_ALL: every arena's unused dirty pages, at once.
    control("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  ::malloc_trim(0);
}

}  // namespace diagd::core
