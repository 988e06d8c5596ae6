#pragma once
// What ptxas says about each kernel it compiled (`-Xptxas -v`): registers per thread, spills,
// stack, static shared memory; and the occupancy those figures allow on the target GPU. Kept with
// the artifact (the compile cache stores them) and handed to the profiler, which has no hardware
// counters to read without a GPU.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kforge::toolchain {

struct KernelResources {
  std::string function;  // the mangled name ptxas reports ("_Z7rmsnormPKfS0_Pf")
  std::string arch;      // "sm_90"
  int registers = 0;     // per thread
  int barriers = 0;
  long shared_bytes = 0;  // static shared memory per block
  long stack_bytes = 0;   // stack frame per thread (local memory)
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
  long constant_bytes = 0;  // cmem[0]: the kernel's parameters and constants
};

// The limits of one GPU architecture that decide occupancy (CUDA C Programming Guide, "Compute
// Capabilities" table). Unknown architectures get sm_90's.
struct ArchLimits {
  int sm = 90;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int register_granularity = 256;  // registers are allocated per warp in units of this many
  long shared_per_sm = 233472;     // 228 KiB
  long shared_per_block = 232448;  // 227 KiB (opt-in; 48 KiB without cudaFuncSetAttribute)
  int shared_granularity = 128;
  long reserved_shared_per_block = 1024;  // the runtime's per-block reservation (sm_80 and later)
};
ArchLimits arch_limits(const std::string& arch);

struct Occupancy {
  int block_threads = 0;
  int blocks_per_sm = 0;
  double fraction = 0;  // active warps / maximum warps per SM
  std::string limiter;  // "registers", "shared memory", "blocks", "threads"
};

// The occupancy a kernel with `r` reaches with `block_threads` threads per block and
// `dynamic_shared` bytes of dynamic shared memory on arch `r.arch`.
Occupancy occupancy(const KernelResources& r, int block_threads, long dynamic_shared = 0);

// Parses nvcc's output with -Xptxas -v: one entry per entry function, in the order ptxas reported.
std::vector<KernelResources> parse_ptxas_report(const std::string& compiler_output);

// One line per kernel for humans and the profiler: "rms: 32 regs, 0 B spills, 1.0 KiB smem;
// occupancy 100% at 256 threads (limit: threads)"; a note when it spills.
std::string format_resources(const std::vector<KernelResources>& kernels);

void to_json(nlohmann::json& j, const KernelResources& r);
void from_json(const nlohmann::json& j, KernelResources& r);

}  // namespace kforge::toolchain
