// The check and the paired timing on a GPU, in the order the evaluation contract gives them.
// Everything decisive happens here, in kforge's process: the comparison of bytes read back from
// the device, the clock around each call, the perturbation of inputs and the pairing.
#include "kforge/targets/gpu_judge.h"

#include <fmt/format.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <regex>

#include "kforge/core/compare.h"
#include "kforge/core/input_fill.h"
#include "kforge/eval/mismatch.h"
#include "kforge/targets/gpu_batch_timing.h"
#include "kforge/targets/gpu_device_failure.h"

namespace kforge::eval {
namespace {

// 0xFF in every byte: NaN for f32 and f64, -1 for the integer types, and what no correct kernel
// leaves in an output it was meant to write.
constexpr std::byte kPoison{0xFF};
// How long the judge waits after a call returned before it synchronizes the device again and
// rereads the outputs: the host thread seen on the H200 launched its work 0.3 ms after the return.
// Work launched later still is no escape: the outputs peeked at the return lack it.
constexpr double kSettleWindowS = 0.002;

Status upload_all(GpuDevice& d, const std::vector<DeviceBuffer>& to, const HostSet& from) {
  for (std::size_t i = 0; i < to.size(); ++i)
    if (auto st = d.upload(to[i], from.tensors[i]); !st) return st;
  return ok_status();
}

Status poison(GpuDevice& d, const std::vector<DeviceBuffer>& outputs) {
  for (const auto& o : outputs) {
    std::vector<std::byte> nan(o.bytes, kPoison);
    if (auto st = d.upload(o, nan); !st) return st;
  }
  return ok_status();
}

Result<HostSet> download_all(GpuDevice& d, const std::vector<DeviceBuffer>& from) {
  HostSet s;
  for (const auto& b : from) {
    s.tensors.emplace_back(b.bytes);
    if (auto st = d.download(b, s.tensors.back()); !st) return st.error();
  }
  return s;
}

// "forbidden system call NAME (NR): ..." from what a process the filter killed printed: the
// runner's line comes last (the kernel shares the output and could print one before it).
std::string trapped_call_sentence(const std::string& output) {
  static const std::regex line(R"(forbidden system call ([A-Za-z0-9_?]+) \((-?\d+)\))");
  std::string call = "a forbidden system call (killed by the seccomp filter: SIGSYS)";
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it)
    call = fmt::format("forbidden system call {} ({})", (*it)[1].str(), (*it)[2].str());
  return call + ": kernels may compute, allocate memory and start threads, nothing else";
}

// A judgement when any input's bytes differ from what was uploaded.
std::optional<Judgement> inputs_unchanged(GpuDevice& d, const DeviceSet& b,
                                          const core::ResolvedTask& task, const HostSet& expected,
                                          const std::string& when) {
  auto now = download_all(d, b.inputs);
  if (!now) return device_failure(d, when, now.error().message);
  for (std::size_t i = 0; i < b.inputs.size(); ++i) {
    const auto& was = expected.tensors[i];
    const auto& is = now->tensors[i];
    std::size_t differ = 0;
    for (std::size_t k = 0; k < was.size(); ++k) differ += was[k] != is[k];
    if (differ)
      return Judgement{Verdict::input_modified,
                       fmt::format("{}: the kernel wrote to input '{}' ({} of {} bytes differ): "
                                   "inputs are read-only",
                                   when, task.inputs[i].name, differ, was.size())};
  }
  return std::nullopt;
}

Result<HostSet> peek_all(GpuDevice& d, const std::vector<DeviceBuffer>& from) {
  HostSet s;
  for (const auto& b : from) {
    s.tensors.emplace_back(b.bytes);
    if (auto st = d.peek(b, s.tensors.back()); !st) return st.error();
  }
  return s;
}

// What a call left, read as the evaluation contract asks: the outputs the instant the call is
// claimed done (a peek: nothing launched after the return is waited for), then the process
// settled (no thread of it running), the whole device synchronized (work launched after the
// return finishes, fails, or overruns the deadline: a timeout), and the outputs read again and
// required unchanged. Work done after the return is caught either way: it was not there at the
// peek (the check or the partner's comparison fails on it), or it changed the outputs later.
struct AfterCall {
  std::optional<Judgement> failure;
  HostSet outputs;  // as peeked
};
AfterCall read_after_call(GpuDevice& d, const DeviceSet& b, const core::ResolvedTask& task,
                          const std::string& when, double timeout_s) {
  AfterCall a;
  auto fail = [&](Verdict v, const std::string& m) {
    a.failure =
        v == Verdict::runtime_error ? device_failure(d, when, m) : Judgement{v, when + ": " + m};
    return std::move(a);
  };
  auto peeked = peek_all(d, b.outputs);
  if (!peeked) return fail(Verdict::runtime_error, peeked.error().message);
  a.outputs = std::move(*peeked);
  if (!d.settle(kSettleWindowS))
    return fail(Verdict::sandbox_violation,
                "a thread of the kernel's process kept running after the call returned (a kernel "
                "must finish its work, on the host and on the device, before it returns)");
  auto sync = d.synchronize(timeout_s);
  if (sync.outcome == DeviceCall::Outcome::hung)
    return fail(Verdict::timeout,
                fmt::format("the device was still busy {:g} s after the call returned: work the "
                            "kernel launched never finished (the watchdog killed its process)",
                            timeout_s));
  if (sync.outcome == DeviceCall::Outcome::failed)
    return fail(Verdict::runtime_error, "CUDA error after the call returned: " + sync.error);
  auto again = download_all(d, b.outputs);
  if (!again) return fail(Verdict::runtime_error, again.error().message);
  for (std::size_t o = 0; o < b.outputs.size(); ++o) {
    const auto& was = a.outputs.tensors[o];
    const auto& is = again->tensors[o];
    std::size_t differ = 0;
    for (std::size_t k = 0; k < was.size(); ++k) differ += was[k] != is[k];
    if (differ)
      return fail(Verdict::sandbox_violation,
                  fmt::format("output '{}' changed after the call had returned ({} of {} bytes): "
                              "work launched after the return (a host thread, a callback, "
                              "another stream) ran outside the call and its time; a kernel must "
                              "finish before it returns",
                              task.outputs[o].name, differ, was.size()));
  }
  return a;
}

void perturb_set(const core::ResolvedTask& task, const HostSet& pristine, HostSet& out,
                 std::uint64_t seed, double spread) {
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto& t = task.inputs[i];
    if (!t.mutate) {
      out.tensors[i] = pristine.tensors[i];
      continue;
    }
    core::perturb(t.dtype, pristine.tensors[i].data(), out.tensors[i].data(), t.numel,
                  seed ^ (0x9E3779B97F4A7C15ULL * (i + 1)), spread);
  }
}

struct TimedCall {
  double ms = 0;
  std::optional<Judgement> failure;
  HostSet outputs;
};

// One timed call: fresh inputs, poisoned outputs, a cold L2, then the call on kforge's clock.
TimedCall timed_call(GpuDevice& d, const DeviceSet& b, const core::ResolvedTask& task,
                     const HostSet& inputs, const PairedTimingRequest& req, const MsClock& clock,
                     const std::string& who) {
  TimedCall t;
  auto fail = [&](const std::string& m) {
    t.failure = device_failure(d, who, m);
    return t;
  };
  if (auto st = upload_all(d, b.inputs, inputs); !st) return fail(st.error().message);
  if (auto st = poison(d, b.outputs); !st) return fail(st.error().message);
  if (auto st = d.flush_l2(); !st) return fail(st.error().message);
  const double start = clock();
  auto call = d.call(b.args(), req.call_timeout_s);
  t.ms = clock() - start;
  if ((t.failure = judge_call(d, call, who, req.call_timeout_s))) return t;
  auto after = read_after_call(d, b, task, who, req.call_timeout_s);
  if ((t.failure = std::move(after.failure))) return t;
  if ((t.failure = inputs_unchanged(d, b, task, inputs, who))) return t;
  t.outputs = std::move(after.outputs);
  return t;
}

}  // namespace

// Why the device's process failed a request, as the cpp target names it (runner_failure.cpp): a
// death by SIGSYS is the seccomp filter's, a sandbox_violation naming the trapped call (the
// runner prints "forbidden system call NAME (NR)" before it dies); anything else a runtime_error.
Judgement device_failure(const GpuDevice& d, const std::string& when, const std::string& message) {
  const auto death = d.death();
  if (death.signal != SIGSYS) return {Verdict::runtime_error, when + ": " + message};
  return {Verdict::sandbox_violation, when + ": " + trapped_call_sentence(death.output)};
}

std::optional<Judgement> judge_call(const GpuDevice& d, const DeviceCall& c,
                                    const std::string& when, double timeout_s) {
  switch (c.outcome) {
    case DeviceCall::Outcome::returned:
      return std::nullopt;
    case DeviceCall::Outcome::hung:
      return Judgement{Verdict::timeout,
                       fmt::format("{}: the kernel did not finish within {:g} s (the device was "
                                   "synchronized, so work on any stream counts); the watchdog "
                                   "killed its process",
                                   when, timeout_s)};
    case DeviceCall::Outcome::failed:
      break;
  }
  return device_failure(d, when, "CUDA error: " + c.error);
}

Judgement judge_start_failure(const std::string& message) {
  // The form the device's process gives a death (cuda_process_device.cpp): "(killed by signal N:".
  if (message.find(fmt::format("(killed by signal {}:", SIGSYS)) == std::string::npos)
    return {Verdict::runtime_error, message};
  return {Verdict::sandbox_violation, "loading the kernel: " + trapped_call_sentence(message)};
}

std::vector<DeviceBuffer> DeviceSet::args() const {
  std::vector<DeviceBuffer> a = inputs;
  a.insert(a.end(), outputs.begin(), outputs.end());
  return a;
}

Result<DeviceSet> allocate_set(GpuDevice& device, const core::ResolvedTask& task) {
  DeviceSet s;
  for (const auto& t : task.inputs) {
    auto b = device.allocate(t.bytes);
    if (!b) return with_context(b.error(), "allocating input '" + t.name + "'");
    s.inputs.push_back(*b);
  }
  for (const auto& t : task.outputs) {
    auto b = device.allocate(t.bytes);
    if (!b) return with_context(b.error(), "allocating output '" + t.name + "'");
    s.outputs.push_back(*b);
  }
  return s;
}

std::optional<Judgement> gpu_check(GpuDevice& device, const DeviceSet& buffers,
                                   const core::ResolvedTask& task,
                                   const std::vector<HostSet>& inputs,
                                   const std::vector<HostSet>& references, double timeout_s,
                                   Evaluation& e) {
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    const std::string when = fmt::format("check set {}", s + 1);
    auto fail = [&](const Error& err) { return device_failure(device, when, err.message); };
    if (auto st = upload_all(device, buffers.inputs, inputs[s]); !st) return fail(st.error());
    if (auto st = poison(device, buffers.outputs); !st) return fail(st.error());
    if (auto j = judge_call(device, device.call(buffers.args(), timeout_s), when, timeout_s))
      return j;
    auto got = read_after_call(device, buffers, task, when, timeout_s);
    if (got.failure) return got.failure;
    if (auto j = inputs_unchanged(device, buffers, task, inputs[s], when)) return j;
    MismatchReport report{static_cast<int>(s + 1), task.rtol, task.atol, {}};
    for (std::size_t o = 0; o < task.outputs.size(); ++o) {
      auto m = analyze_output(task.outputs[o], got.outputs.tensors[o].data(),
                              references[s].tensors[o].data(), task.rtol, task.atol);
      if (m.bad > 0) report.outputs.push_back(std::move(m));
    }
    if (!report.outputs.empty()) {
      std::string summary = report.summary();
      e.mismatch = std::move(report);
      return Judgement{Verdict::incorrect, summary};
    }
  }
  return std::nullopt;
}

MsClock steady_ms_clock() {
  return [] {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
}

PairedTiming gpu_paired_timing(GpuDevice& candidate, const DeviceSet& candidate_buffers,
                               GpuDevice* partner, const DeviceSet* partner_buffers,
                               const core::ResolvedTask& task, const HostSet& timing_inputs,
                               const PairedTimingRequest& req,
                               const std::function<std::uint64_t()>& seed, const MsClock& clock,
                               GpuTimingInfo* info) {
  GpuTimingInfo own;
  GpuTimingInfo& said = info ? *info : own;
  if (auto batched = gpu_batched_timing(candidate, candidate_buffers, partner, partner_buffers,
                                        task, timing_inputs, req, seed, clock, said))
    return *batched;
  PairedTiming result;
  HostSet inputs = timing_inputs;
  const double start = clock();
  bool warming = true;
  for (int pair = 0; pair < req.max_pairs + 1; ++pair) {
    if (req.cancel && req.cancel->load()) {
      result.failure = Judgement{Verdict::interrupted, "interrupted (Ctrl-C) while timing"};
      return result;
    }
    if (req.between_pairs) req.between_pairs();
    perturb_set(task, timing_inputs, inputs, seed(), req.perturb);
    const std::string which = fmt::format("timed pair {}", pair + 1);
    // The candidate always first, on inputs no one has read since they were written.
    auto c =
        timed_call(candidate, candidate_buffers, task, inputs, req, clock, which + ", the kernel");
    if (c.failure) {
      result.failure = c.failure;
      return result;
    }
    std::optional<TimedCall> p;
    if (partner) {
      p = timed_call(*partner, *partner_buffers, task, inputs, req, clock, which + ", the partner");
      if (p->failure) {
        result.failure = p->failure;
        return result;
      }
      // Both sides approximate the exact result: twice the task's tolerance between them.
      for (std::size_t o = 0; o < task.outputs.size(); ++o) {
        auto m = analyze_output(task.outputs[o], c.outputs.tensors[o].data(),
                                p->outputs.tensors[o].data(), 2 * task.rtol, 2 * task.atol);
        if (m.bad > 0) {
          result.failure = Judgement{
              Verdict::incorrect,
              fmt::format("{}: output '{}' differs from the partner's on the same inputs in {} of "
                          "{} elements (max abs error {:g}): a kernel must be right on every "
                          "call, not only the checked ones",
                          which, task.outputs[o].name, m.bad, m.numel, m.max_abs)};
          return result;
        }
      }
    }
    const double elapsed_s = (clock() - start) / 1e3;
    if (warming) {
      ++result.warmup_pairs;
      warming = elapsed_s < req.warmup_s;
      continue;
    }
    result.candidate_ms.push_back(c.ms);
    if (p) result.partner_ms.push_back(p->ms);
    if (timing_done(result, req, elapsed_s)) break;  // the cpu target's stop rule
  }
  return result;
}

}  // namespace kforge::eval
