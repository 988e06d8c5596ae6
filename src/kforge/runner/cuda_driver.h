#pragma once
// The NVIDIA driver as kforge finds it: libcuda.so.1 opened at run time (kforge builds and runs
// on machines without a driver, and says so), the devices it sees and what each is. No CUDA
// header is needed to build this: the few driver entry points are declared here by their ABI.

#include <cstdint>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::runner {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;          // "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability
  int sms = 0;               // multiprocessors
  std::uint64_t memory_bytes = 0;
  int l2_bytes = 0;
  int clock_khz = 0;         // the SM clock at its peak
  int memory_clock_khz = 0;  // 0 where the driver no longer reports it
  int memory_bus_bits = 0;
  int driver_version = 0;  // 13000 = 13.0
  std::string arch() const { return "sm_" + std::to_string(major * 10 + minor); }
};

// Every CUDA device of this machine, or an error that starts "no CUDA device" and says why: no
// driver library, the driver failed to initialize (its error), or it sees no device.
Result<std::vector<CudaDeviceInfo>> cuda_devices();

}  // namespace kforge::runner
