// Line-oriented parse of ptxas's verbose report, and the occupancy arithmetic of the CUDA
// occupancy calculator (per-warp register allocation, shared memory granularity, block limits).
#include "kforge/toolchain/ptxas_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace kforge::toolchain {
namespace {

long round_up(long v, long unit) { return unit > 0 ? (v + unit - 1) / unit * unit : v; }

long number_before(const std::string& line, const std::string& what) {
  std::regex re("(\\d+) bytes " + what);
  std::smatch m;
  return std::regex_search(line, m, re) ? std::stol(m[1]) : 0;
}

int arch_number(const std::string& arch) {
  std::smatch m;
  static const std::regex re(R"(sm_(\d+))");
  return std::regex_search(arch, m, re) ? std::stoi(m[1]) : 90;
}

}  // namespace

ArchLimits arch_limits(const std::string& arch) {
  ArchLimits l;
  l.sm = arch_number(arch);
  switch (l.sm / 10) {
    case 7:  // Volta, Turing
      l.max_threads_per_sm = l.sm == 75 ? 1024 : 2048;
      l.max_blocks_per_sm = l.sm == 75 ? 16 : 32;
      l.shared_per_sm = l.sm == 75 ? 65536 : 98304;
      l.shared_per_block = l.sm == 75 ? 65536 : 98304;
      l.reserved_shared_per_block = 0;
      break;
    case 8:  // Ampere (sm_80: 164 KiB; sm_86/89: 100 KiB)
      l.max_threads_per_sm = l.sm == 80 ? 2048 : 1536;
      l.max_blocks_per_sm = l.sm == 80 ? 32 : (l.sm == 89 ? 24 : 16);
      l.shared_per_sm = l.sm == 80 ? 167936 : 102400;
      l.shared_per_block = l.shared_per_sm - 1024;
      break;
    case 10:  // Blackwell datacenter: as Hopper for these limits
      break;
    case 12:  // Blackwell consumer
      l.max_threads_per_sm = 1536;
      l.max_blocks_per_sm = 32;
      l.shared_per_sm = 102400;
      l.shared_per_block = 101376;
      break;
    default:  // sm_90 and anything unknown
      break;
  }
  return l;
}

Occupancy occupancy(const KernelResources& r, int block_threads, long dynamic_shared) {
  const ArchLimits l = arch_limits(r.arch);
  Occupancy o;
  o.block_threads = block_threads;
  if (block_threads <= 0 || block_threads > 1024) return o;
  const int warps_per_block = (block_threads + 31) / 32;
  const int max_warps = l.max_threads_per_sm / 32;
  struct Limit {
    int blocks;
    const char* name;
  };
  std::vector<Limit> limits;
  limits.push_back({l.max_blocks_per_sm, "blocks"});
  limits.push_back({max_warps / warps_per_block, "threads"});
  if (r.registers > 0) {
    const long per_warp = round_up(static_cast<long>(r.registers) * 32, l.register_granularity);
    const long warps_by_regs = l.registers_per_sm / per_warp;
    limits.push_back({static_cast<int>(warps_by_regs / warps_per_block), "registers"});
  }
  const long shared = r.shared_bytes + dynamic_shared;
  if (shared > 0) {
    if (shared > l.shared_per_block) return {block_threads, 0, 0, "shared memory"};
    const long per_block = round_up(shared + l.reserved_shared_per_block, l.shared_granularity);
    limits.push_back({static_cast<int>(l.shared_per_sm / per_block), "shared memory"});
  }
  auto least = std::min_element(limits.begin(), limits.end(),
                                [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
  o.blocks_per_sm = std::max(0, least->blocks);
  o.limiter = least->name;
  o.fraction = static_cast<double>(o.blocks_per_sm * warps_per_block) / max_warps;
  return o;
}

std::vector<KernelResources> parse_ptxas_report(const std::string& output) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<KernelResources> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      out.push_back(KernelResources{.function = m[1], .arch = m[2]});
      continue;
    }
    if (out.empty()) continue;
    KernelResources& k = out.back();
    if (line.find("stack frame") != std::string::npos) {
      k.stack_bytes = number_before(line, "stack frame");
      k.spill_store_bytes = number_before(line, "spill stores");
      k.spill_load_bytes = number_before(line, "spill loads");
    }
    if (std::regex_search(line, m, used)) {
      k.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers)) k.barriers = std::stoi(m[1]);
      k.shared_bytes = number_before(line, "smem");
      if (std::regex_search(line, m, cmem)) k.constant_bytes = std::stol(m[1]);
    }
  }
  return out;
}

std::string format_resources(const std::vector<KernelResources>& kernels) {
  std::string s;
  for (const auto& k : kernels) {
    // Occupancy needs the block size, which only the launch knows: the common 256 is shown, and
    // the largest block the registers allow at full occupancy is what a tuner would aim for.
    const Occupancy at256 = occupancy(k, 256);
    s += fmt::format(
        "{} ({}): {} registers, {} B shared, {} B stack, spills {} B stored / {} B loaded; "
        "occupancy {:.0f}% at 256 threads per block (limited by {})\n",
        k.function, k.arch, k.registers, k.shared_bytes, k.stack_bytes, k.spill_store_bytes,
        k.spill_load_bytes, 100 * at256.fraction, at256.limiter);
    if (k.spill_store_bytes > 0 || k.spill_load_bytes > 0)
      s += fmt::format(
          "  note: {} spills registers to local memory: fewer live values, smaller unrolls, or "
          "__launch_bounds__ with fewer threads\n",
          k.function);
  }
  return s;
}

void to_json(nlohmann::json& j, const KernelResources& r) {
  j = {{"function", r.function},
       {"arch", r.arch},
       {"registers", r.registers},
       {"barriers", r.barriers},
       {"shared_bytes", r.shared_bytes},
       {"stack_bytes", r.stack_bytes},
       {"spill_store_bytes", r.spill_store_bytes},
       {"spill_load_bytes", r.spill_load_bytes},
       {"constant_bytes", r.constant_bytes},
       {"occupancy_256", occupancy(r, 256).fraction}};
}

void from_json(const nlohmann::json& j, KernelResources& r) {
  r.function = j.value("function", "");
  r.arch = j.value("arch", "");
  r.registers = j.value("registers", 0);
  r.barriers = j.value("barriers", 0);
  r.shared_bytes = j.value("shared_bytes", 0L);
  r.stack_bytes = j.value("stack_bytes", 0L);
  r.spill_store_bytes = j.value("spill_store_bytes", 0L);
  r.spill_load_bytes = j.value("spill_load_bytes", 0L);
  r.constant_bytes = j.value("constant_bytes", 0L);
}

}  // namespace kforge::toolchain
