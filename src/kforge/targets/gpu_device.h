#pragma once
// One GPU as the judge drives it, behind a narrow interface: the real one is the kernel's own
// process holding a CUDA context (the device runner), the fake one (fake_gpu_device.h) runs in
// tests without a GPU. Every method is a request the judge makes; what comes back is data the
// judge checks (bytes, "returned", "hung"), never a verdict or a time: the judge takes times on
// its own clock around call().

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::eval {

struct DeviceBuffer {
  int id = -1;
  std::size_t bytes = 0;
};

struct DeviceCall {
  enum class Outcome { returned, hung, failed };
  Outcome outcome = Outcome::failed;
  std::string error;  // failed: the CUDA error ("an illegal memory access was encountered")
};

// A batch of timed calls (GpuDevice::time_calls). Every call gets inputs made fresh on the device
// from pristine copies uploaded once (multiplied by the call's table of factors, or copied),
// poisoned outputs and a cold L2, with the device idle when it starts; each call's outputs are
// copied to its snapshot buffers the instant the device is idle after it.
struct BatchInput {
  DeviceBuffer buffer, pristine;
  bool f64 = false;                            // the factors' type (f32 otherwise)
  std::vector<std::vector<std::byte>> tables;  // one per call (core::perturb_table); none: copied
};
struct TimedBatch {
  int calls = 1;
  std::vector<BatchInput> inputs;
  std::vector<DeviceBuffer> outputs;
  std::vector<std::vector<DeviceBuffer>> snapshots;  // [call][output]
  DeviceBuffer table_buffer;                         // room for every call's tables
  bool null_call = false;                            // every step but the call: the overhead
  double timeout_s = 30;                             // the whole batch
};
// What the device's process measured of one call: the events on the kernel's stream around it,
// and its own clock from before the call to the end of the device-wide synchronization.
struct CallTime {
  double device_ms = 0, host_ms = 0;
};
struct BatchOutcome {
  DeviceCall call;           // returned, hung (the watchdog), failed (the error names the call)
  bool unsupported = false;  // this device cannot time batches (call.error says why)
  std::vector<CallTime> times;
};

class GpuDevice {
 public:
  virtual ~GpuDevice() = default;
  // Device memory for one tensor, 256-byte aligned (cudaMalloc's guarantee).
  virtual Result<DeviceBuffer> allocate(std::size_t bytes) = 0;
  virtual Status upload(const DeviceBuffer& to, std::span<const std::byte> from) = 0;
  virtual Status download(const DeviceBuffer& from, std::span<std::byte> to) = 0;
  // Calls the kernel's host entry with `args` (inputs in order, then outputs) and the process's
  // stream, then waits for the whole device (cuCtxSynchronize, not the stream): work the kernel
  // left on another stream or in a graph is finished, or has failed, before this returns. After
  // `timeout_s` the watchdog kills the process and the call is `hung`; the device is gone. What
  // the judge does after a return (gpu_judge.h): peek at the outputs at once, settle, synchronize
  // again, and require the outputs unchanged.
  virtual DeviceCall call(const std::vector<DeviceBuffer>& args, double timeout_s) = 0;
  // The bytes of `from` as they are at this moment, waiting for nothing the kernel launched (a
  // copy on a non-blocking stream of the runner's own). Read the instant a call is claimed done,
  // they are what the call produced: work launched after it (a host thread, a callback, another
  // stream) cannot finish in time to be counted.
  virtual Status peek(const DeviceBuffer& from, std::span<std::byte> to) = 0;
  // Waits until the whole device is idle again (cuCtxSynchronize) for at most `timeout_s`: work
  // launched after a call returned is finished, has failed, or overran (`hung`: the watchdog
  // killed the process).
  virtual DeviceCall synchronize(double timeout_s) = 0;
  // Waits at least `window_s`, then until no thread of the device's process runs (every one
  // asleep, its CPU quiet). False: a thread kept computing after the call returned.
  virtual bool settle(double window_s) = 0;
  // How the device's process ended, once it has: the signal that killed it (0: alive, or it
  // exited) and what it printed last (the runner names a system call the filter trapped).
  struct Death {
    int signal = 0;
    std::string output;
  };
  virtual Death death() const { return {}; }
  // Evicts the L2 cache (a write over a buffer larger than it), so a timed call reads its inputs
  // from memory as it would inside a model, not from the previous call's cache lines.
  virtual Status flush_l2() = 0;
  // The bytes of `ranges` (offset, length) of `from`, in order, after the work on the kernel's
  // stream (a plain copy): samples of a tensor too large to read whole every pair.
  struct Range {
    std::size_t offset = 0, length = 0;
  };
  virtual Result<std::vector<std::byte>> gather(const DeviceBuffer& from,
                                                const std::vector<Range>& ranges) = 0;
  // Runs a timed batch (TimedBatch); what comes back are the process's own measures, which the
  // judge checks against its clock (gpu_judge.cpp), never takes on trust alone.
  virtual BatchOutcome time_calls(const TimedBatch& batch) = 0;
  // Ends the device's process and returns what it printed (a compute-sanitizer report when it
  // ran under one); empty for a device that prints nothing.
  virtual Result<std::string> finish() { return std::string{}; }
};

}  // namespace kforge::eval
