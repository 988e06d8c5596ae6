// /proc/cpuinfo and sysfs for the description; the peak accessors.
#include "kforge/eval/machine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "kforge/core/fs.h"
#include "kforge/eval/microarch.h"

namespace kforge::eval {
namespace {

const char* kIsaFlags[] = {"sse4_2",      "avx",         "avx2",        "fma",      "f16c",
                           "avx512f",     "avx512dq",    "avx512cd",    "avx512bw", "avx512vl",
                           "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
                           "amx_bf16",    "amx_int8"};

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\n") + 1);
  return s;
}

std::string sys_read(const std::filesystem::path& p) {
  auto t = core::read_text(p);
  return t ? trim(*t) : std::string{};
}

std::size_t parse_size(const std::string& s) {  // "32K", "1024K", "32768K", "8M"
  if (s.empty()) return 0;
  std::size_t v = std::stoull(s);
  char unit = s.back();
  if (unit == 'K') v <<= 10;
  if (unit == 'M') v <<= 20;
  return v;
}

int count_cpu_list(const std::string& list) {  // "0-3,8" → 5
  int n = 0;
  std::stringstream ss(list);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos)
      ++n;
    else
      n += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
  }
  return n;
}

int to_int(const std::string& s) { return std::atoi(s.c_str()); }

// The clock a kernel can count on: cpufreq's maximum when the kernel exposes it (not in most VMs),
// else the nominal clock in the model name ("… @ 2.60GHz"), else what /proc/cpuinfo last saw.
void fill_clock(MachineProfile& m, double cpuinfo_mhz) {
  if (auto khz = sys_read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
      !khz.empty() && std::atof(khz.c_str()) > 0) {
    m.clock_ghz = std::atof(khz.c_str()) / 1e6;
    m.clock_source = "cpufreq max";
    return;
  }
  if (auto at = m.cpu_model.find("GHz"); at != std::string::npos) {
    auto start = m.cpu_model.find_last_of(" @", at - 1);
    double ghz = start == std::string::npos ? 0 : std::atof(m.cpu_model.c_str() + start + 1);
    if (ghz > 0) {
      m.clock_ghz = ghz;
      m.clock_source = "model name";
      return;
    }
  }
  if (cpuinfo_mhz > 0) {
    m.clock_ghz = cpuinfo_mhz / 1e3;
    m.clock_source = "cpu MHz";
  }
}

}  // namespace

double MachineProfile::peak_gflops(int threads) const {
  if (threads <= 1 || logical_cpus <= 1) return fma_gflops_1;
  if (threads >= logical_cpus) return fma_gflops_all;
  return std::min(fma_gflops_all, fma_gflops_1 * threads);
}

double MachineProfile::peak_gbps(int threads) const {
  return threads <= 1 ? triad_gbps_1 : triad_gbps_all;
}

double MachineProfile::cache_bytes(int threads) const {
  const int cpus = std::max(1, std::min(threads, logical_cpus));
  double total = 0;
  for (const auto& c : caches) {
    if (c.type == "Instruction") continue;
    const int per = std::max(1, c.shared_by_cpus);
    const int instances = (cpus + per - 1) / per;  // the instances those CPUs reach (rounded up)
    total += static_cast<double>(c.size_bytes) * instances;
  }
  return total;
}

MachineProfile describe_cpu() {
  MachineProfile m;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  m.usable_cpus = usable_cpus();
  std::set<std::string> flags;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical_id, core_id;
  double mhz = 0;
  bool first_cpu_done = false;  // family, model and clock of the first processor
  if (auto text = core::read_text("/proc/cpuinfo")) {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
      if (key == "model name" && m.cpu_model.empty()) m.cpu_model = value;
      if (key == "processor") first_cpu_done = m.logical_cpus++ > 0;
      if (!first_cpu_done) {
        if (key == "vendor_id") m.vendor = value;
        if (key == "cpu family") m.cpu_family = to_int(value);
        if (key == "model") m.cpu_model_number = to_int(value);
        if (key == "stepping") m.stepping = to_int(value);
        if (key == "cpu MHz") mhz = std::atof(value.c_str());
      }
      if (key == "physical id") physical_id = value;
      if (key == "core id") cores.insert({physical_id, value});
      if (key == "flags" && flags.empty()) {
        std::istringstream fs(value);
        for (std::string f; fs >> f;) flags.insert(f);
      }
    }
  }
  m.physical_cores = cores.empty() ? m.logical_cpus : static_cast<int>(cores.size());
  auto arch =
      microarchitecture(m.vendor, m.cpu_family, m.cpu_model_number, m.stepping, m.cpu_model);
  m.microarch = arch.name;
  m.microarch_note = arch.note;
  fill_clock(m, mhz);
  for (const char* f : kIsaFlags)
    if (flags.count(f)) m.isa.push_back(f);
  for (int i = 0; i < 8; ++i) {
    std::filesystem::path dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}", i);
    if (!std::filesystem::exists(dir)) break;
    CacheLevel c;
    c.level = std::stoi("0" + sys_read(dir / "level"));
    c.type = sys_read(dir / "type");
    c.size_bytes = parse_size(sys_read(dir / "size"));
    c.shared_by_cpus = count_cpu_list(sys_read(dir / "shared_cpu_list"));
    m.caches.push_back(c);
  }
  return m;
}

nlohmann::json to_json(const MachineProfile& m) {
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : m.caches)
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"shared_by_cpus", c.shared_by_cpus}});
  return {{"cpu_model", m.cpu_model},
          {"vendor", m.vendor},
          {"cpu_family", m.cpu_family},
          {"cpu_model_number", m.cpu_model_number},
          {"stepping", m.stepping},
          {"microarch", m.microarch},
          {"microarch_note", m.microarch_note},
          {"clock_ghz", m.clock_ghz},
          {"clock_source", m.clock_source},
          {"hostname", m.hostname},
          {"isa", m.isa},
          {"logical_cpus", m.logical_cpus},
          {"usable_cpus", m.usable_cpus},
          {"physical_cores", m.physical_cores},
          {"caches", caches},
          {"openblas_core", m.openblas_core},
          {"openblas_coretype_env", m.openblas_coretype_env},
          {"openblas_config", m.openblas_config},
          {"openblas_warning", openblas_core_warning(m)},
          {"peaks",
           {{"fma_gflops_1", m.fma_gflops_1},
            {"fma_gflops_all", m.fma_gflops_all},
            {"triad_gbps_1", m.triad_gbps_1},
            {"triad_gbps_all", m.triad_gbps_all},
            {"isa_used", m.peak_isa},
            {"measured_at", m.measured_at},
            {"provisional", m.provisional},
            {"provisional_reason", m.provisional_reason},
            {"load", to_json(m.peak_load)},
            {"runs", m.peak_runs.size()},
            {"spread", to_json(m.peak_spread)},
            {"file", m.peak_file.string()}}}};
}

std::string openblas_core_warning(const MachineProfile& m) {
  auto has = [&](const char* ext) {
    return std::find(m.isa.begin(), m.isa.end(), ext) != m.isa.end();
  };
  // OpenBLAS's cores without AVX2 kernels: what DYNAMIC_ARCH falls back to on an unknown CPU.
  static const char* const kGeneric[] = {"Prescott",  "Core2", "Penryn", "Dunnington",
                                         "Nehalem",   "Atom",  "Katmai", "Coppermine",
                                         "Northwood", "Banias"};
  const bool generic =
      std::find(std::begin(kGeneric), std::end(kGeneric), m.openblas_core) != std::end(kGeneric);
  if (!generic || !has("avx2")) return "";
  const bool avx512 = has("avx512f");
  return fmt::format(
      "OpenBLAS runs its generic {} kernels on a CPU with {}: libtorch's GEMMs (the default "
      "partner) run several times slower than they could; set OPENBLAS_CORETYPE={} for figures "
      "against an optimized libtorch",
      m.openblas_core, avx512 ? "AVX-512" : "AVX2", avx512 ? "SkylakeX" : "Haswell");
}

}  // namespace kforge::eval
