#pragma once
// The fake GpuDevice that gpu_device.h promises, for tests of the GPU judge without a GPU: device
// memory is host memory, the "kernel" a function the test writes over views of its argument
// buffers, and time a clock the test owns, advanced by each call's simulated duration. A kernel
// can leave work pending (run at the device-wide synchronization), hang, or fail as CUDA would.

#include <algorithm>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kforge/eval/gpu_device.h"

namespace kforge::eval {

struct FakeLaunch {
  double ms = 1.0;                // how long the call takes on the device
  bool hang = false;              // never finishes: the watchdog fires
  std::string error;              // non-empty: a CUDA error at the synchronization
  std::function<void()> pending;  // work on another stream: runs at the device-wide sync
};

class FakeGpuDevice : public GpuDevice {
 public:
  using Kernel = std::function<FakeLaunch(std::vector<std::span<std::byte>>& args)>;
  FakeGpuDevice(Kernel kernel, double* clock_ms) : kernel_(std::move(kernel)), clock_(clock_ms) {}

  Result<DeviceBuffer> allocate(std::size_t bytes) override {
    memory_.emplace_back(bytes, std::byte{0x5A});
    return DeviceBuffer{static_cast<int>(memory_.size() - 1), bytes};
  }
  Status upload(const DeviceBuffer& to, std::span<const std::byte> from) override {
    if (dead_) return Error{"the device process is gone"};
    std::copy(from.begin(), from.end(), memory_.at(to.id).begin());
    return ok_status();
  }
  Status download(const DeviceBuffer& from, std::span<std::byte> to) override {
    if (dead_) return Error{"the device process is gone"};
    std::copy_n(memory_.at(from.id).begin(), to.size(), to.begin());
    return ok_status();
  }
  DeviceCall call(const std::vector<DeviceBuffer>& args, double timeout_s) override {
    if (dead_) return {DeviceCall::Outcome::failed, "the device process is gone"};
    std::vector<std::span<std::byte>> views;
    for (const auto& a : args) views.emplace_back(memory_.at(a.id));
    ++calls_;
    FakeLaunch launch = kernel_(views);
    if (launch.hang) {
      *clock_ += timeout_s * 1e3;
      dead_ = true;  // the watchdog killed the process
      return {DeviceCall::Outcome::hung, {}};
    }
    *clock_ += launch.ms;
    if (launch.pending) launch.pending();  // cudaDeviceSynchronize waits for every stream
    if (!launch.error.empty()) return {DeviceCall::Outcome::failed, launch.error};
    return {DeviceCall::Outcome::returned, {}};
  }
  Status flush_l2() override {
    ++l2_flushes_;
    return ok_status();
  }

  int calls() const { return calls_; }
  int l2_flushes() const { return l2_flushes_; }

 private:
  Kernel kernel_;
  double* clock_;
  std::vector<std::vector<std::byte>> memory_;
  bool dead_ = false;
  int calls_ = 0, l2_flushes_ = 0;
};

}  // namespace kforge::eval
