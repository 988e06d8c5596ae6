#pragma once
// Which core design a CPU is, from the family and model numbers /proc/cpuinfo reports (the model
// name string as a fallback), and what about it changes how kernels should be written: how wide
// its SIMD datapaths really are (Zen 4 executes a 512-bit operation as two 256-bit halves), how
// many FMA units it has, which ISA it lacks. The model name alone often hides it ("Intel(R)
// Xeon(R) Processor @ 2.60GHz" in a VM is an Ice Lake).

#include <string>
#include <string_view>

namespace kforge::eval {

struct Microarchitecture {
  std::string name;  // "Zen 4", "Ice Lake-SP"; "" when unknown
  std::string note;  // what matters for kernels on it; "" when nothing beyond the ISA list
};

// vendor_id ("GenuineIntel", "AuthenticAMD"), cpu family, model and stepping as /proc/cpuinfo
// gives them (decimal), and the model name.
Microarchitecture microarchitecture(std::string_view vendor, int family, int model, int stepping,
                                    std::string_view model_name);

}  // namespace kforge::eval
