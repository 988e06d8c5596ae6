// The batched paired timing on a GPU (gpu_batch_timing.h): set-up once per side, then pairs of
// batches on the same freshly drawn factors, each checked before its times count.
#include "kforge/targets/gpu_batch_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "kforge/core/dtype.h"
#include "kforge/core/input_fill.h"
#include "kforge/eval/mismatch.h"
#include "kforge/targets/gpu_device_failure.h"

namespace kforge::eval {
namespace {

constexpr double kSampleMs = 2.0;  // the kernel time one sample gathers
constexpr int kMaxCalls = 64;
constexpr std::size_t kSnapshotBudget = std::size_t{256} << 20;  // device memory for snapshots
constexpr int kComparedCalls = 2;  // calls per batch compared with the partner, besides the last
constexpr std::size_t kWholeBytes = std::size_t{64} << 10;  // tensors up to this are read whole
constexpr int kSampleRanges = 16;                           // else this many ranges of
constexpr std::size_t kRangeBytes = 4096;                   // this size, placed at random
constexpr double kSettleWindowS = 0.002;
constexpr int kNullBatches = 3, kNullCalls = 8;
// A batch's reported times may fall short of kforge's clock (less the cost of the same calls
// without the call) by this share, half a call's preparation per call (or the spread of that
// cost) and a slack: the noise of two clocks on a busy host, where a preempted runner adds to
// kforge's clock only. A process under-reported its calls when every batch of the run (at least
// kShortfallBatches) falls short beyond that; one quiet batch clears the run.
constexpr double kShortfallShare = 0.25, kShortfallSlackMs = 0.05;
constexpr int kShortfallBatches = 3;
// A call's events stand unless the runner's clock saw this much more work (on another stream).
constexpr double kOffStreamShare = 0.05, kOffStreamMs = 0.02;

using Ranges = std::vector<GpuDevice::Range>;
using Tables = std::vector<std::vector<std::vector<std::byte>>>;  // [input][call]

struct Side {
  GpuDevice* d = nullptr;
  const DeviceSet* set = nullptr;
  std::string who;
  std::vector<DeviceBuffer> pristine;
  std::vector<std::vector<DeviceBuffer>> slots;  // [call][output]
  DeviceBuffer tables;
  double null_call_ms = 0;    // kforge's clock per call of a batch without the call
  double null_spread_ms = 0;  // how much that varied between null batches, per call
  double overhead_ms = 0;     // the runner's own: host minus device time of a call of nothing
  double reported_ms = 0, clock_ms = 0;  // over the run
  double least_shortfall_ms = 1e300;     // the least any batch fell short beyond its allowance
  int batches = 0;
};

bool perturbed(const core::ResolvedTensor& t) {
  return t.mutate && (t.dtype == core::DType::f32 || t.dtype == core::DType::f64);
}

int max_calls(const core::ResolvedTask& task) {
  std::size_t out = 0;
  for (const auto& o : task.outputs) out += o.bytes;
  return static_cast<int>(
      std::clamp<std::size_t>(kSnapshotBudget / std::max<std::size_t>(out, 1), 1, kMaxCalls));
}

std::optional<Judgement> set_up(Side& s, const core::ResolvedTask& task, const HostSet& inputs,
                                int calls) {
  auto fail = [&](const Error& e) {
    return device_failure(*s.d, s.who + " (setting up the timing)", e.message);
  };
  std::size_t table_bytes = 0;
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    auto b = s.d->allocate(task.inputs[i].bytes);
    if (!b) return fail(b.error());
    if (auto st = s.d->upload(*b, inputs.tensors[i]); !st) return fail(st.error());
    s.pristine.push_back(*b);
    if (perturbed(task.inputs[i]))
      table_bytes += core::kPerturbTable * core::dtype_size(task.inputs[i].dtype);
  }
  for (int k = 0; k < calls; ++k) {
    s.slots.emplace_back();
    for (const auto& o : task.outputs) {
      auto b = s.d->allocate(o.bytes);
      if (!b) return fail(b.error());
      s.slots.back().push_back(*b);
    }
  }
  if (table_bytes > 0) {
    auto b = s.d->allocate(table_bytes * static_cast<std::size_t>(calls));
    if (!b) return fail(b.error());
    s.tables = *b;
  }
  return std::nullopt;
}

TimedBatch make_batch(const Side& s, const core::ResolvedTask& task, const Tables& tables,
                      int calls, bool null_call, double call_timeout_s) {
  TimedBatch b;
  b.calls = calls;
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    BatchInput in{s.set->inputs[i], s.pristine[i], task.inputs[i].dtype == core::DType::f64, {}};
    if (perturbed(task.inputs[i])) in.tables.assign(tables[i].begin(), tables[i].begin() + calls);
    b.inputs.push_back(std::move(in));
  }
  b.outputs = s.set->outputs;
  b.snapshots.assign(s.slots.begin(), s.slots.begin() + calls);
  b.table_buffer = s.tables;
  b.null_call = null_call;
  b.timeout_s = call_timeout_s * calls + 10;
  return b;
}

// Factors for `calls` calls, one draw of kforge's seeds per call, the same for both sides.
Tables draw_tables(const core::ResolvedTask& task, int calls,
                   const std::function<std::uint64_t()>& seed, double spread) {
  Tables t(task.inputs.size());
  for (int k = 0; k < calls; ++k) {
    const std::uint64_t s = seed();
    for (std::size_t i = 0; i < task.inputs.size(); ++i)
      if (perturbed(task.inputs[i]))
        t[i].push_back(core::perturb_table(task.inputs[i].dtype,
                                           s ^ (0x9E3779B97F4A7C15ULL * (i + 1)), spread));
  }
  return t;
}

struct Ran {
  std::vector<CallTime> times;
  double clock_ms = 0;
  bool unsupported = false;
  std::string why;
  std::optional<Judgement> failure;
};

// One batch on kforge's clock; its reported times must fit inside that clock.
Ran run(Side& s, const TimedBatch& b, const MsClock& clock, const std::string& when) {
  Ran r;
  const double t0 = clock();
  auto out = s.d->time_calls(b);
  r.clock_ms = clock() - t0;
  if (out.unsupported) {
    r.unsupported = true;
    r.why = out.call.error;
    return r;
  }
  if ((r.failure = judge_call(*s.d, out.call, when, b.timeout_s))) return r;
  if (out.times.size() != static_cast<std::size_t>(b.calls)) {
    r.failure = Judgement{Verdict::runtime_error, when + ": the device's process sent times for " +
                                                      std::to_string(out.times.size()) + " of " +
                                                      std::to_string(b.calls) + " calls"};
    return r;
  }
  double host_total = 0;
  for (const auto& t : out.times) {
    host_total += t.host_ms;
    if (!(t.device_ms >= 0) || t.device_ms > t.host_ms + 0.002) {
      r.failure = Judgement{Verdict::sandbox_violation,
                            fmt::format("{}: the device's process reported {:.4f} ms of device "
                                        "time within {:.4f} ms of its own clock",
                                        when, t.device_ms, t.host_ms)};
      return r;
    }
  }
  if (host_total > r.clock_ms + 0.001 * b.calls) {
    r.failure = Judgement{Verdict::sandbox_violation,
                          fmt::format("{}: the device's process reported {:.4f} ms for calls that "
                                      "took {:.4f} ms on kforge's clock",
                                      when, host_total, r.clock_ms)};
    return r;
  }
  r.times = std::move(out.times);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The cost of a batch without its calls, on kforge's clock and on the runner's: what the bound
// subtracts, and what a call's runner time holds besides the call.
std::optional<Ran> measure_overhead(Side& s, const core::ResolvedTask& task, const MsClock& clock,
                                    const std::function<std::uint64_t()>& seed, double spread) {
  std::vector<double> per_call, overhead;
  for (int n = 0; n < kNullBatches; ++n) {
    auto tables = draw_tables(task, kNullCalls, seed, spread);
    auto r = run(s, make_batch(s, task, tables, std::min<int>(kNullCalls, s.slots.size()), true, 5),
                 clock, s.who + " (measuring the timing's overhead)");
    if (r.unsupported || r.failure) return r;
    per_call.push_back(r.clock_ms / static_cast<double>(r.times.size()));
    for (const auto& t : r.times) overhead.push_back(t.host_ms - t.device_ms);
  }
  s.null_call_ms = median(per_call);
  s.null_spread_ms = *std::max_element(per_call.begin(), per_call.end()) -
                     *std::min_element(per_call.begin(), per_call.end());
  s.overhead_ms = median(overhead);
  return std::nullopt;
}

double call_figure(const CallTime& t, double overhead_ms) {
  const double runner = t.host_ms - overhead_ms;
  return runner > t.device_ms * (1 + kOffStreamShare) + kOffStreamMs ? runner : t.device_ms;
}

// The batch's mean per call, and what kforge's clock allows the bound.
double account(Side& s, const Ran& r) {
  double sum = 0;
  for (const auto& t : r.times) sum += call_figure(t, s.overhead_ms);
  const auto calls = static_cast<double>(r.times.size());
  const double estimate = r.clock_ms - calls * s.null_call_ms;
  const double allowance = kShortfallShare * std::max(estimate, 0.0) +
                           calls * std::max(0.5 * s.null_call_ms, s.null_spread_ms) +
                           kShortfallSlackMs;
  s.reported_ms += sum;
  s.clock_ms += estimate;
  s.least_shortfall_ms = std::min(s.least_shortfall_ms, estimate - allowance - sum);
  ++s.batches;
  return sum / calls;
}

std::optional<Judgement> under_reported(const Side& s) {
  if (s.batches < kShortfallBatches || s.least_shortfall_ms <= 0) return std::nullopt;
  return Judgement{Verdict::sandbox_violation,
                   fmt::format("{}: the device's process reported {:.3f} ms of calls where "
                               "kforge's clock, less the cost of the same batches without their "
                               "calls, saw {:.3f} ms, short in each of {} batches: its times "
                               "cannot be trusted",
                               s.who, s.reported_ms, s.clock_ms, s.batches)};
}

Ranges sample_ranges(std::size_t bytes, std::size_t element, std::mt19937_64& rng) {
  if (bytes <= kWholeBytes) return {{0, bytes}};
  Ranges r;
  std::uniform_int_distribution<std::size_t> at(0, (bytes - kRangeBytes) / element);
  for (int n = 0; n < kSampleRanges; ++n) r.push_back({at(rng) * element, kRangeBytes});
  std::sort(r.begin(), r.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
  return r;
}

core::ResolvedTensor sampled(const core::ResolvedTensor& t, std::size_t bytes) {
  core::ResolvedTensor s = t;
  s.numel = static_cast<std::int64_t>(bytes / core::dtype_size(t.dtype));
  s.shape = {s.numel};
  s.bytes = bytes;
  return s;
}

std::size_t bytes_differ(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) n += a[k] != b[k];
  return n + std::max(a.size(), b.size()) - std::min(a.size(), b.size());
}

// After a batch: the process settled, the device idle, and the outputs as the last call left them.
std::optional<Judgement> after_batch(Side& s, const core::ResolvedTask& task,
                                     const std::vector<Ranges>& out_ranges, int calls,
                                     double timeout_s, const std::string& when) {
  if (!s.d->settle(kSettleWindowS))
    return Judgement{Verdict::sandbox_violation,
                     when +
                         ": a thread of the kernel's process kept running after the call "
                         "returned (a kernel must finish its work, on the host and on the "
                         "device, before it returns)"};
  auto sync = s.d->synchronize(timeout_s);
  if (sync.outcome == DeviceCall::Outcome::hung)
    return Judgement{Verdict::timeout,
                     fmt::format("{}: the device was still busy {:g} s after the call returned: "
                                 "work the kernel launched never finished",
                                 when, timeout_s)};
  if (auto j = judge_call(*s.d, sync, when, timeout_s)) return j;
  for (std::size_t o = 0; o < task.outputs.size(); ++o) {
    auto now = s.d->gather(s.set->outputs[o], out_ranges[o]);
    auto then = s.d->gather(s.slots[static_cast<std::size_t>(calls - 1)][o], out_ranges[o]);
    if (!now || !then)
      return device_failure(*s.d, when, (now ? then.error() : now.error()).message);
    if (auto n = bytes_differ(*now, *then))
      return Judgement{Verdict::sandbox_violation,
                       fmt::format("{}: output '{}' changed after the call had returned ({} of "
                                   "{} bytes read): work launched after the return (a host "
                                   "thread, a callback, another stream) ran outside the call and "
                                   "its time; a kernel must finish before it returns",
                                   when, task.outputs[o].name, n, now->size())};
  }
  return std::nullopt;
}

// The bytes kforge's perturbation gives `ranges` of input i (the table of the call), or the
// pristine bytes when `table` is null.
std::vector<std::byte> expected_input(const core::ResolvedTensor& t,
                                      const std::vector<std::byte>& pristine, const Ranges& ranges,
                                      const std::vector<std::byte>* table) {
  std::vector<std::byte> out;
  const std::size_t el = core::dtype_size(t.dtype);
  for (const auto& r : ranges) {
    const std::size_t first = out.size();
    out.insert(out.end(), pristine.begin() + static_cast<std::ptrdiff_t>(r.offset),
               pristine.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length));
    if (!table) continue;
    for (std::size_t e = 0; e < r.length / el; ++e) {
      const std::size_t index = r.offset / el + e;
      std::byte* at = out.data() + first + e * el;
      const std::byte* f = table->data() + (index % core::kPerturbTable) * el;
      if (t.dtype == core::DType::f32) {
        float x, y;
        std::memcpy(&x, at, 4);
        std::memcpy(&y, f, 4);
        x *= y;
        std::memcpy(at, &x, 4);
      } else {
        double x, y;
        std::memcpy(&x, at, 8);
        std::memcpy(&y, f, 8);
        x *= y;
        std::memcpy(at, &x, 8);
      }
    }
  }
  return out;
}

// The inputs as the last call saw them, against kforge's own perturbation of them (or, with
// `pristine_only`, the pristine copies against what kforge uploaded).
std::optional<Judgement> inputs_as_made(Side& s, const core::ResolvedTask& task,
                                        const HostSet& pristine, const Tables* tables, int call,
                                        std::mt19937_64& rng, const std::string& when) {
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto& t = task.inputs[i];
    auto ranges = sample_ranges(t.bytes, core::dtype_size(t.dtype), rng);
    const bool pristine_only = tables == nullptr;
    auto got = s.d->gather(pristine_only ? s.pristine[i] : s.set->inputs[i], ranges);
    if (!got) return device_failure(*s.d, when, got.error().message);
    const std::vector<std::byte>* table =
        !pristine_only && perturbed(t) ? &(*tables)[i][static_cast<std::size_t>(call)] : nullptr;
    auto want = expected_input(t, pristine.tensors[i], ranges, table);
    if (auto n = bytes_differ(*got, want))
      return Judgement{
          Verdict::input_modified,
          fmt::format("{}: {} of input '{}' differs from what kforge made of it ({} of {} bytes "
                      "read): the kernel wrote to an input, which is read-only",
                      when, pristine_only ? "the pristine copy" : "the last call's copy", t.name, n,
                      got->size())};
  }
  return std::nullopt;
}

// Calls chosen after the batch (the last, and kComparedCalls others), compared with the partner's
// outputs of the same call on the same inputs: twice the task's tolerance, as both approximate.
std::optional<Judgement> compare_with_partner(Side& c, Side& p, const core::ResolvedTask& task,
                                              const std::vector<Ranges>& out_ranges, int calls,
                                              std::mt19937_64& rng, const std::string& when) {
  std::vector<int> chosen = {calls - 1};
  std::uniform_int_distribution<int> any(0, calls - 1);
  for (int n = 0; n < kComparedCalls && calls > 1; ++n) chosen.push_back(any(rng));
  for (int k : chosen)
    for (std::size_t o = 0; o < task.outputs.size(); ++o) {
      auto mine = c.d->gather(c.slots[static_cast<std::size_t>(k)][o], out_ranges[o]);
      if (!mine) return device_failure(*c.d, when, mine.error().message);
      auto theirs = p.d->gather(p.slots[static_cast<std::size_t>(k)][o], out_ranges[o]);
      if (!theirs) return device_failure(*p.d, when + ", the partner", theirs.error().message);
      auto m = analyze_output(sampled(task.outputs[o], mine->size()), mine->data(), theirs->data(),
                              2 * task.rtol, 2 * task.atol);
      if (m.bad > 0)
        return Judgement{
            Verdict::incorrect,
            fmt::format("{}, call {}: output '{}' differs from the partner's on the same inputs "
                        "in {} of {} elements read (max abs error {:g}): a kernel must be right "
                        "on every call, not only the checked ones",
                        when, k + 1, task.outputs[o].name, m.bad, m.numel, m.max_abs)};
    }
  return std::nullopt;
}

// One side's batch, checked: its times, or the verdict that ends the timing.
struct SideBatch {
  double per_call_ms = 0;
  std::optional<Judgement> failure;
  bool unsupported = false;
  std::string why;
};
SideBatch time_side(Side& s, const core::ResolvedTask& task, const HostSet& pristine,
                    const Tables& tables, int calls, const std::vector<Ranges>& out_ranges,
                    const PairedTimingRequest& req, const MsClock& clock, std::mt19937_64& rng,
                    const std::string& when) {
  SideBatch sb;
  auto r = run(s, make_batch(s, task, tables, calls, false, req.call_timeout_s), clock, when);
  if (r.unsupported) {
    sb.unsupported = true;
    sb.why = r.why;
    return sb;
  }
  if ((sb.failure = r.failure)) return sb;
  if ((sb.failure = after_batch(s, task, out_ranges, calls, req.call_timeout_s, when))) return sb;
  if ((sb.failure = inputs_as_made(s, task, pristine, &tables, calls - 1, rng, when))) return sb;
  sb.per_call_ms = account(s, r);
  return sb;
}

}  // namespace

std::optional<PairedTiming> gpu_batched_timing(GpuDevice& candidate, const DeviceSet& candidate_set,
                                               GpuDevice* partner, const DeviceSet* partner_set,
                                               const core::ResolvedTask& task,
                                               const HostSet& timing_inputs,
                                               const PairedTimingRequest& req,
                                               const std::function<std::uint64_t()>& seed,
                                               const MsClock& clock, GpuTimingInfo& info) {
  PairedTiming result;
  const int most = max_calls(task);
  std::vector<Side> sides;
  sides.push_back({&candidate, &candidate_set, "the kernel"});
  if (partner) sides.push_back({partner, partner_set, "the partner"});
  for (auto& s : sides) {
    if ((result.failure = set_up(s, task, timing_inputs, most))) return result;
    auto o = measure_overhead(s, task, clock, seed, req.perturb);
    if (o && o->unsupported) {
      info.why_not_batched = o->why;
      return std::nullopt;
    }
    if (o && (result.failure = o->failure)) return result;
  }
  std::mt19937_64 rng(seed());
  int calls = 1;
  const double start = clock();
  bool warming = true;
  for (int pair = 0; pair < req.max_pairs + 1; ++pair) {
    if (req.cancel && req.cancel->load()) {
      result.failure = Judgement{Verdict::interrupted, "interrupted (Ctrl-C) while timing"};
      return result;
    }
    if (req.between_pairs) req.between_pairs();
    const std::string which = fmt::format("timed batch {}", pair + 1);
    const auto tables = draw_tables(task, calls, seed, req.perturb);
    std::vector<Ranges> out_ranges;
    for (const auto& o : task.outputs)
      out_ranges.push_back(sample_ranges(o.bytes, core::dtype_size(o.dtype), rng));
    std::vector<double> per_call;
    for (auto& s : sides) {
      auto sb = time_side(s, task, timing_inputs, tables, calls, out_ranges, req, clock, rng,
                          which + ", " + s.who);
      if (sb.unsupported) {
        info.why_not_batched = sb.why;
        return std::nullopt;
      }
      if ((result.failure = sb.failure)) return result;
      per_call.push_back(sb.per_call_ms);
    }
    if (partner && (result.failure = compare_with_partner(sides[0], sides[1], task, out_ranges,
                                                          calls, rng, which)))
      return result;
    const double elapsed_s = (clock() - start) / 1e3;
    if (warming) {
      ++result.warmup_pairs;
      warming = elapsed_s < req.warmup_s;
      // Enough calls per sample for about kSampleMs of the slower side's kernel time.
      const double slower = *std::max_element(per_call.begin(), per_call.end());
      calls = std::clamp(static_cast<int>(std::ceil(kSampleMs / std::max(slower, 1e-4))), 1, most);
      continue;
    }
    result.candidate_ms.push_back(per_call[0]);
    if (partner) result.partner_ms.push_back(per_call[1]);
    if (timing_done(result, req, elapsed_s)) break;
  }
  for (auto& s : sides) {
    if ((result.failure = under_reported(s))) return result;
    if ((result.failure =
             inputs_as_made(s, task, timing_inputs, nullptr, 0, rng, "after the timing, " + s.who)))
      return result;
  }
  info.batched = true;
  info.calls_per_sample = calls;
  return result;
}

}  // namespace kforge::eval
