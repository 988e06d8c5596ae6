#pragma once
// The fake GpuDevice that gpu_device.h promises, for tests of the GPU judge without a GPU: device
// memory is host memory, the "kernel" a function the test writes over views of its argument
// buffers, and time a clock the test owns, advanced by each call's simulated duration. A kernel
// can leave work pending (run at the device-wide synchronization), hang, or fail as CUDA would;
// it can also have work launched after its call returned (a host thread, a callback), work that
// then never finishes, or a host thread that keeps computing.

#include <algorithm>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kforge/core/input_fill.h"
#include "kforge/targets/gpu_device.h"

namespace kforge::eval {

struct FakeLaunch {
  double ms = 1.0;                // how long the call takes on the device
  bool hang = false;              // never finishes: the watchdog fires
  std::string error;              // non-empty: a CUDA error at the synchronization
  std::function<void()> pending;  // work on another stream: runs at the device-wide sync
  // Launched after the call returned (a host thread of the kernel's, ~0.3 ms later): not done
  // when the outputs are peeked at the return; done by the next device-wide synchronization, or
  // by a plain copy (which waits for the work on the legacy stream).
  std::function<void()> late;
  bool busy_after_return = false;   // work launched after the return never finishes
  bool host_keeps_running = false;  // a host thread computes on after the return
  double off_stream_ms = 0;         // work on a stream of its own: the events miss it, the runner's
                                    // clock and the device-wide synchronization do not
  int killed_by = 0;       // the process dies of this signal during the call (SIGSYS: the filter)
  std::string last_words;  // what it printed before ("forbidden system call clone (56)")
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
    run_late();  // a plain copy waits for work launched on the legacy stream
    return peek(from, to);
  }
  Status peek(const DeviceBuffer& from, std::span<std::byte> to) override {
    if (dead_) return Error{"the device process is gone"};
    std::copy_n(memory_.at(from.id).begin(), to.size(), to.begin());
    return ok_status();
  }
  DeviceCall synchronize(double timeout_s) override {
    if (dead_) return {DeviceCall::Outcome::failed, "the device process is gone"};
    if (busy_after_return_) {
      *clock_ += timeout_s * 1e3;
      dead_ = true;  // the watchdog killed the process
      return {DeviceCall::Outcome::hung, {}};
    }
    run_late();
    return {DeviceCall::Outcome::returned, {}};
  }
  bool settle(double) override {
    ++settles_;
    return !host_keeps_running_;
  }
  DeviceCall call(const std::vector<DeviceBuffer>& args, double timeout_s) override {
    if (dead_) return {DeviceCall::Outcome::failed, "the device process is gone"};
    std::vector<std::span<std::byte>> views;
    for (const auto& a : args) views.emplace_back(memory_.at(a.id));
    ++calls_;
    FakeLaunch launch = kernel_(views);
    if (launch.killed_by) {
      dead_ = true;
      death_ = {launch.killed_by, launch.last_words};
      return {DeviceCall::Outcome::failed, "the kernel's process died (killed by signal " +
                                               std::to_string(launch.killed_by) + ")"};
    }
    last_ = launch;
    late_ = std::move(launch.late);
    busy_after_return_ = launch.busy_after_return;
    host_keeps_running_ = launch.host_keeps_running;
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
  Result<std::vector<std::byte>> gather(const DeviceBuffer& from,
                                        const std::vector<Range>& ranges) override {
    if (dead_) return Error{"the device process is gone"};
    run_late();
    std::vector<std::byte> out;
    for (const auto& r : ranges) {
      const auto& m = memory_.at(from.id);
      out.insert(out.end(), m.begin() + static_cast<std::ptrdiff_t>(r.offset),
                 m.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length));
    }
    return out;
  }
  // A batch as kforge-run-cuda runs it, on host memory: fresh inputs from the pristine copies,
  // poison, a flush, the call (the clock advances by its device time, plus its work on other
  // streams, plus kPrepareMs per call for the steps around it), the snapshot before late work.
  static constexpr double kPrepareMs = 0.02;
  BatchOutcome time_calls(const TimedBatch& b) override {
    BatchOutcome out;
    ++batches_;
    if (!batches_supported) {
      out.unsupported = true;
      out.call = {DeviceCall::Outcome::failed, "this fake times call by call"};
      return out;
    }
    for (int k = 0; k < b.calls; ++k) {
      for (const auto& in : b.inputs) make_fresh(in, k);
      for (const auto& o : b.outputs)
        std::fill(memory_.at(o.id).begin(), memory_.at(o.id).end(), std::byte{0xFF});
      ++l2_flushes_;
      *clock_ += kPrepareMs;
      const double before = *clock_;
      FakeLaunch launch;
      if (!b.null_call) {
        std::vector<DeviceBuffer> args;
        for (const auto& in : b.inputs) args.push_back(in.buffer);
        args.insert(args.end(), b.outputs.begin(), b.outputs.end());
        auto c = call(args, b.timeout_s);
        if (c.outcome != DeviceCall::Outcome::returned) {
          out.call = c;
          return out;
        }
        launch = last_;
        *clock_ += launch.off_stream_ms;
      }
      const double host = *clock_ - before + kHostOverheadMs;
      *clock_ += kHostOverheadMs;
      out.times.push_back({(b.null_call ? 0.0 : launch.ms) * report_factor, host * report_factor});
      for (std::size_t o = 0; o < b.outputs.size(); ++o)
        memory_.at(b.snapshots.at(static_cast<std::size_t>(k)).at(o).id) =
            memory_.at(b.outputs[o].id);
      run_late();  // work launched after the return lands after the snapshot, before the next call
    }
    out.call = {DeviceCall::Outcome::returned, {}};
    return out;
  }

  Death death() const override { return death_; }

  int calls() const { return calls_; }
  int batches() const { return batches_; }
  bool batches_supported = true;
  double report_factor = 1.0;  // < 1: a process that under-reports its calls' times
  static constexpr double kHostOverheadMs = 0.005;  // the runner's synchronization after a call
  int l2_flushes() const { return l2_flushes_; }
  int settles() const { return settles_; }

 private:
  void make_fresh(const BatchInput& in, int k) {
    auto& to = memory_.at(in.buffer.id);
    const auto& from = memory_.at(in.pristine.id);
    if (in.tables.empty()) {
      std::copy(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(to.size()), to.begin());
      return;
    }
    core::apply_perturb_table(in.f64 ? core::DType::f64 : core::DType::f32, from.data(), to.data(),
                              static_cast<std::int64_t>(to.size() / (in.f64 ? 8 : 4)),
                              in.tables.at(static_cast<std::size_t>(k)));
  }
  void run_late() {
    if (!late_) return;
    auto work = std::move(late_);
    late_ = nullptr;
    work();
  }

  Kernel kernel_;
  double* clock_;
  std::vector<std::vector<std::byte>> memory_;
  std::function<void()> late_;
  bool busy_after_return_ = false, host_keeps_running_ = false;
  bool dead_ = false;
  Death death_;
  int calls_ = 0, l2_flushes_ = 0, settles_ = 0, batches_ = 0;
  FakeLaunch last_;
};

}  // namespace kforge::eval
