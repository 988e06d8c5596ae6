// A handful of driver API calls through dlopen. The enum values are the driver's ABI (cuda.h);
// they have not changed since CUDA 4.
#include "kforge/runner/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace kforge::runner {
namespace {

using CUresult = int;
using CUdevice = int;
constexpr int kAttrClockRate = 13;
constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrMemoryClockRate = 36;
constexpr int kAttrMemoryBusWidth = 37;
constexpr int kAttrL2CacheSize = 38;
constexpr int kAttrComputeMajor = 75;
constexpr int kAttrComputeMinor = 76;

struct Driver {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*driver_version)(int*) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*total_mem)(std::size_t*, CUdevice) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
};

template <typename F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
  return f != nullptr;
}

std::string error_text(const Driver& d, CUresult r) {
  const char* s = nullptr;
  if (d.error_string && d.error_string(r, &s) == 0 && s) return fmt::format("{} ({})", s, r);
  return fmt::format("CUDA driver error {}", r);
}

}  // namespace

Result<std::vector<CudaDeviceInfo>> cuda_devices() {
  // Opened once and kept: the driver does not support being unloaded.
  static void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return Error{
        "no CUDA device: the NVIDIA driver library (libcuda.so.1) is not installed on this "
        "machine"};
  Driver d;
  bool ok = bind(lib, "cuInit", d.init) && bind(lib, "cuDriverGetVersion", d.driver_version) &&
            bind(lib, "cuDeviceGetCount", d.device_count) &&
            bind(lib, "cuDeviceGet", d.device_get) && bind(lib, "cuDeviceGetName", d.device_name) &&
            bind(lib, "cuDeviceGetAttribute", d.device_attribute) &&
            bind(lib, "cuDeviceTotalMem_v2", d.total_mem);
  bind(lib, "cuGetErrorString", d.error_string);
  if (!ok) return Error{"no CUDA device: libcuda.so.1 lacks the driver API kforge calls"};
  if (CUresult r = d.init(0); r != 0)
    return Error{"no CUDA device: the NVIDIA driver did not initialize: " + error_text(d, r)};
  int count = 0;
  if (CUresult r = d.device_count(&count); r != 0)
    return Error{"no CUDA device: " + error_text(d, r)};
  if (count == 0) return Error{"no CUDA device: the NVIDIA driver sees none"};
  int version = 0;
  d.driver_version(&version);
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (d.device_get(&dev, i) != 0) continue;
    CudaDeviceInfo info;
    info.index = i;
    info.driver_version = version;
    char name[256] = {};
    d.device_name(name, sizeof name - 1, dev);
    info.name = name;
    d.device_attribute(&info.major, kAttrComputeMajor, dev);
    d.device_attribute(&info.minor, kAttrComputeMinor, dev);
    d.device_attribute(&info.sms, kAttrMultiprocessors, dev);
    d.device_attribute(&info.l2_bytes, kAttrL2CacheSize, dev);
    d.device_attribute(&info.clock_khz, kAttrClockRate, dev);
    d.device_attribute(&info.memory_clock_khz, kAttrMemoryClockRate, dev);
    d.device_attribute(&info.memory_bus_bits, kAttrMemoryBusWidth, dev);
    std::size_t mem = 0;
    d.total_mem(&mem, dev);
    info.memory_bytes = mem;
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace kforge::runner
