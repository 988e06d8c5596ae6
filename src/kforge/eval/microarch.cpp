// Tables of (family, model) ranges for the x86 cores kforge is likely to run on. Sources: the
// vendors' model numbers as the Linux kernel lists them (arch/x86/include/asm/intel-family.h,
// AMD's family 17h/19h/1Ah processor guides).
#include "kforge/eval/microarch.h"

#include <regex>

namespace kforge::eval {
namespace {

// What the cores share, said once per family of designs.
constexpr const char* kIntelServerAvx512 =
    "AVX-512 with one or two 512-bit FMA units depending on the part (the measured FMA peak tells "
    "which); long runs of "
    "512-bit instructions may lower the clock, so measure 512-bit against 256-bit code";
constexpr const char* kIntelClient256 = "two 256-bit FMA units; no AVX-512";
constexpr const char* kIntelHybrid =
    "hybrid P- and E-cores, no AVX-512; threads that land on E-cores run slower, so balance work "
    "dynamically";

struct Range {
  int first, last;
  const char* name;
  const char* note;
};

constexpr Range kIntelFamily6[] = {
    {0x3C, 0x3C, "Haswell", kIntelClient256},
    {0x3F, 0x3F, "Haswell-E", kIntelClient256},
    {0x45, 0x46, "Haswell", kIntelClient256},
    {0x3D, 0x3D, "Broadwell", kIntelClient256},
    {0x47, 0x47, "Broadwell", kIntelClient256},
    {0x4F, 0x4F, "Broadwell-E", kIntelClient256},
    {0x56, 0x56, "Broadwell-DE", kIntelClient256},
    {0x4E, 0x4E, "Skylake", kIntelClient256},
    {0x5E, 0x5E, "Skylake", kIntelClient256},
    {0x8E, 0x8E, "Kaby Lake / Coffee Lake", kIntelClient256},
    {0x9E, 0x9E, "Kaby Lake / Coffee Lake", kIntelClient256},
    {0xA5, 0xA6, "Comet Lake", kIntelClient256},
    {0x6A, 0x6A, "Ice Lake-SP", kIntelServerAvx512},
    {0x6C, 0x6C, "Ice Lake-SP", kIntelServerAvx512},
    {0x7D, 0x7E, "Ice Lake",
     "AVX-512 with one 512-bit FMA unit (512-bit code mainly saves instructions)"},
    {0x8C, 0x8D, "Tiger Lake",
     "AVX-512 with one 512-bit FMA unit (512-bit code mainly saves instructions)"},
    {0xA7, 0xA7, "Rocket Lake",
     "AVX-512 with one 512-bit FMA unit (512-bit code mainly saves instructions)"},
    {0x8F, 0x8F, "Sapphire Rapids",
     "AVX-512 with two 512-bit FMA units; AMX tiles serve bf16 and int8, not f32"},
    {0xCF, 0xCF, "Emerald Rapids",
     "AVX-512 with two 512-bit FMA units; AMX tiles serve bf16 and int8, not f32"},
    {0xAD, 0xAE, "Granite Rapids",
     "AVX-512 with two 512-bit FMA units; AMX tiles serve bf16, fp16 and int8, not f32"},
    {0x97, 0x97, "Alder Lake", kIntelHybrid},
    {0x9A, 0x9A, "Alder Lake", kIntelHybrid},
    {0xB7, 0xB7, "Raptor Lake", kIntelHybrid},
    {0xBA, 0xBA, "Raptor Lake", kIntelHybrid},
    {0xBF, 0xBF, "Raptor Lake", kIntelHybrid},
    {0xAA, 0xAC, "Meteor Lake", kIntelHybrid},
    {0xC5, 0xC6, "Arrow Lake", kIntelHybrid},
    {0xBD, 0xBD, "Lunar Lake", kIntelHybrid},
    {0xAF, 0xAF, "Sierra Forest",
     "E-cores only: 128-bit FMA units, no AVX-512; AVX2 code runs as two halves"},
};

constexpr const char* kZen2 = "two 256-bit FMA units; no AVX-512";
constexpr const char* kZen4 =
    "AVX-512 runs on 256-bit datapaths: each 512-bit operation issues as two 256-bit halves, so "
    "512-bit code halves the "
    "instruction count but not the time of the FMAs (the FMA peak equals 256-bit code's); no clock "
    "penalty for AVX-512";

constexpr Range kAmdFamily17[] = {
    {0x00, 0x2F, "Zen / Zen+",
     "256-bit AVX2 operations execute as two 128-bit halves: AVX2 FMA throughput is half a 256-bit "
     "core's"},
    {0x30, 0xAF, "Zen 2", kZen2},
};
constexpr Range kAmdFamily19[] = {
    {0x00, 0x0F, "Zen 3", kZen2}, {0x10, 0x1F, "Zen 4", kZen4}, {0x20, 0x5F, "Zen 3", kZen2},
    {0x60, 0x7F, "Zen 4", kZen4}, {0xA0, 0xAF, "Zen 4", kZen4},
};
constexpr const char* kZen5 =
    "AVX-512 on full 512-bit datapaths on desktop and server parts (mobile parts split 512-bit "
    "operations into two halves "
    "like Zen 4: the measured FMA peak tells which)";

template <std::size_t N>
Microarchitecture find(const Range (&table)[N], int model) {
  for (const auto& r : table)
    if (model >= r.first && model <= r.last) return {r.name, r.note};
  return {};
}

// Skylake-SP, Cascade Lake and Cooper Lake share model 0x55; the stepping tells them apart.
Microarchitecture intel_0x55(int stepping) {
  if (stepping >= 10) return {"Cooper Lake", kIntelServerAvx512};
  if (stepping >= 5) return {"Cascade Lake", kIntelServerAvx512};
  return {"Skylake-SP", kIntelServerAvx512};
}

// EPYC model numbers end in the generation: 7xx1 Zen, 7xx2 Zen 2, 7xx3 Zen 3, 9xx4/8xx4 Zen 4, 9xx5
// Zen 5.
Microarchitecture from_name(std::string_view model_name) {
  static const std::regex epyc(R"(EPYC\s+[4789]\d\d([1-5])(?!\d))");
  std::cmatch m;
  std::string name(model_name);
  if (!std::regex_search(name.c_str(), m, epyc)) return {};
  switch (m[1].str()[0]) {
    case '1':
      return {"Zen", kAmdFamily17[0].note};
    case '2':
      return {"Zen 2", kZen2};
    case '3':
      return {"Zen 3", kZen2};
    case '4':
      return {"Zen 4", kZen4};
    default:
      return {"Zen 5", kZen5};
  }
}

}  // namespace

Microarchitecture microarchitecture(std::string_view vendor, int family, int model, int stepping,
                                    std::string_view model_name) {
  Microarchitecture found;
  if (vendor == "GenuineIntel" && family == 6)
    found = model == 0x55 ? intel_0x55(stepping) : find(kIntelFamily6, model);
  if (vendor == "AuthenticAMD" || vendor == "HygonGenuine") {
    if (family == 0x17) found = find(kAmdFamily17, model);
    if (family == 0x19) found = find(kAmdFamily19, model);
    if (family == 0x1A) found = {"Zen 5", kZen5};
  }
  if (found.name.empty()) found = from_name(model_name);
  return found;
}

}  // namespace kforge::eval
