// expect: correct
// mode: timed
// min-kernel-ms: 4.5
// output-has: clock_gettime slots patched
// Sleeps 5 ms in every call, after rewriting every GOT slot named clock_gettime in the libraries
// of its process (making the RELRO page writable first) to a clock that stands still, as a kernel
// did to an older runner that timed calls itself. Caught: calls are timed on kforge's clock, in
// kforge's process. (The runner's own GOT it leaves alone: that mprotect is refused outright, see
// hijacks_runner_got.cpp.)
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <time.h>
#include <cstdio>
static int patched = 0;
static int frozen_clock(clockid_t, timespec* ts) {
  ts->tv_sec = 1000;
  ts->tv_nsec = 0;
  return 0;
}
static void patch_relocations(ElfW(Addr) base, const ElfW(Rela) * rela, std::size_t bytes,
                              const ElfW(Sym) * symtab, const char* strtab) {
  for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Sym)& sym = symtab[ELF64_R_SYM(rela[i].r_info)];
    if (std::strcmp(strtab + sym.st_name, "clock_gettime") != 0) continue;
    auto* slot = reinterpret_cast<void**>(base + rela[i].r_offset);
    auto page = reinterpret_cast<std::uintptr_t>(slot) & ~std::uintptr_t{4095};
    if (mprotect(reinterpret_cast<void*>(page), 4096, PROT_READ | PROT_WRITE) != 0) continue;
    *slot = reinterpret_cast<void*>(&frozen_clock);
    ++patched;
  }
}
static int visit(dl_phdr_info* info, size_t, void*) {
  if (!info->dlpi_name || !*info->dlpi_name) return 0;  // the program, kforge-run
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return 0;
  const ElfW(Rela)* rela = nullptr, *jmprel = nullptr;
  std::size_t rela_size = 0, jmprel_size = 0;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    auto ptr = dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_RELA) rela = reinterpret_cast<const ElfW(Rela)*>(ptr);
    if (dyn->d_tag == DT_RELASZ) rela_size = dyn->d_un.d_val;
    if (dyn->d_tag == DT_JMPREL) jmprel = reinterpret_cast<const ElfW(Rela)*>(ptr);
    if (dyn->d_tag == DT_PLTRELSZ) jmprel_size = dyn->d_un.d_val;
    if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(ptr);
    if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(ptr);
  }
  if (!symtab || !strtab) return 0;
  if (rela) patch_relocations(info->dlpi_addr, rela, rela_size, symtab, strtab);
  if (jmprel) patch_relocations(info->dlpi_addr, jmprel, jmprel_size, symtab, strtab);
  return 0;
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static bool done = false;
  if (!done)
    dl_iterate_phdr(visit, nullptr), std::printf("clock_gettime slots patched: %d\n", patched),
        std::fflush(stdout);
  done = true;
  timespec nap{0, 5000000};
  nanosleep(&nap, nullptr);
  rmsnorm_correct(x, scale, y);
}
