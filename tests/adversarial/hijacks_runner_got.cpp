// expect: sandbox_violation
// reason: mprotect
// reason: runner's own image
// output-lacks: runner_got_writable=1
// Makes kforge-run's read-only GOT writable from a constructor, the first step of taking over a
// call the runner makes between commands (an attack once did its whole computation there, in an
// untimed command, and was timed 157x faster). Caught: the filter refuses mprotect, munmap,
// mremap and MAP_FIXED mmap on the runner's own image, and the process dies naming mprotect.
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <cstdio>
static int first_object(dl_phdr_info* info, size_t, void*) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    auto start = (info->dlpi_addr + ph.p_vaddr) & ~uintptr_t{4095};
    auto end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    int r = mprotect(reinterpret_cast<void*>(start), end - start, PROT_READ | PROT_WRITE);
    std::printf("runner_got_writable=%d\n", r == 0);
    std::fflush(stdout);
  }
  return 1;  // the first object is the program, kforge-run
}
__attribute__((constructor)) static void take_over() { dl_iterate_phdr(first_object, nullptr); }
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
