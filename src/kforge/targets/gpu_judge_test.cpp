// The GPU judge's host logic on a fake device (no GPU needed): each defence of the check and the
// paired timing is shown to catch the kernel it exists for, and the timing's figures are shown to
// come from kforge's clock and pairing. Removing a defence from gpu_judge.cpp fails a test here.
#include "kforge/targets/gpu_judge.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <set>

#include "kforge/core/input_fill.h"
#include "kforge/targets/fake_gpu_device.h"
#include "kforge/targets/gpu_batch_timing.h"
#include "kforge/targets/gpu_judge_test_util.h"

namespace kforge::eval {
namespace {

constexpr int kN = 64;

float* as_floats(std::span<std::byte> s) { return reinterpret_cast<float*>(s.data()); }

// Inputs (seeded ramps) and z = x + y as the reference.
struct Sets {
  std::vector<HostSet> inputs, references;
};
Sets check_sets(int count) {
  Sets s;
  for (int k = 0; k < count; ++k) {
    std::vector<float> x(kN), y(kN), z(kN);
    for (int i = 0; i < kN; ++i) {
      x[i] = 0.5f * i + k;
      y[i] = 1.0f - 0.25f * i * k;
      z[i] = x[i] + y[i];
    }
    s.inputs.push_back(floats({x, y}));
    s.references.push_back(floats({z}));
  }
  return s;
}

FakeLaunch add(std::vector<std::span<std::byte>>& a, double ms = 1.0) {
  for (int i = 0; i < kN; ++i) as_floats(a[2])[i] = as_floats(a[0])[i] + as_floats(a[1])[i];
  return {.ms = ms};
}

class GpuJudgeTest : public ::testing::Test {
 protected:
  std::optional<Judgement> check(FakeGpuDevice::Kernel kernel) {
    FakeGpuDevice device(std::move(kernel), &clock_);
    auto buffers = allocate_set(device, task_);
    EXPECT_TRUE(buffers.ok());
    auto sets = check_sets(3);
    return gpu_check(device, *buffers, task_, sets.inputs, sets.references, 5.0, e_);
  }
  PairedTiming time(FakeGpuDevice& cand, FakeGpuDevice& partner, int pairs = 12,
                    GpuTimingInfo* info = nullptr) {
    auto cb = allocate_set(cand, task_);
    auto pb = allocate_set(partner, task_);
    PairedTimingRequest req;
    req.budget_s = 0;
    req.warmup_s = 0;
    req.min_pairs = req.max_pairs = pairs;
    std::uint64_t next = 1;
    return gpu_paired_timing(
        cand, *cb, &partner, &*pb, task_, check_sets(1).inputs[0], req, [&] { return next++; },
        [this] { return clock_; }, info);
  }
  core::ResolvedTask task_ = add_task(kN);
  Evaluation e_;
  double clock_ = 0;
};

TEST_F(GpuJudgeTest, AnHonestKernelPassesEveryCheckSet) {
  int calls = 0;
  EXPECT_FALSE(check([&](auto& a) {
    ++calls;
    return add(a);
  }));
  EXPECT_EQ(calls, 3);
}

TEST_F(GpuJudgeTest, AWrongElementIsIncorrectWithAMismatchReport) {
  auto j = check([](auto& a) {
    auto l = add(a);
    as_floats(a[2])[17] += 1.0f;
    return l;
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::incorrect);
  ASSERT_TRUE(e_.mismatch);
  EXPECT_EQ(e_.mismatch->outputs.at(0).bad, 1);
}

// Outputs are poisoned before every call: a kernel that writes nothing (or only the first time,
// keeping a result it computed once) leaves NaN, which no reference holds.
TEST_F(GpuJudgeTest, AnOutputLeftUnwrittenIsCaughtByThePoison) {
  bool first = true;
  auto j = check([&](auto& a) {
    if (first) add(a);
    first = false;
    return FakeLaunch{};
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::incorrect);
  EXPECT_EQ(e_.mismatch->check_set, 2);
  EXPECT_GT(e_.mismatch->outputs.at(0).never_written, 0);
}

TEST_F(GpuJudgeTest, AKernelThatWritesAnInputIsInputModified) {
  auto j = check([](auto& a) {
    auto l = add(a);
    as_floats(a[0])[3] = 0;  // scratch space in an input
    return l;
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::input_modified);
  EXPECT_NE(j->reason.find("input 'x'"), std::string::npos) << j->reason;
}

TEST_F(GpuJudgeTest, AHungKernelIsATimeoutNamingTheWatchdog) {
  auto j = check([](auto&) { return FakeLaunch{.hang = true}; });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::timeout);
  EXPECT_NE(j->reason.find("watchdog"), std::string::npos);
}

TEST_F(GpuJudgeTest, ACudaErrorIsARuntimeErrorWithItsText) {
  auto j = check([](auto& a) {
    auto l = add(a);
    l.error = "an illegal memory access was encountered";
    return l;
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::runtime_error);
  EXPECT_NE(j->reason.find("illegal memory access"), std::string::npos);
}

// A process the seccomp filter killed is named as on the cpp target: a sandbox_violation with the
// call the runner named before dying (on the H200: a runtime_error, "killed by signal 31").
TEST_F(GpuJudgeTest, AProcessKilledByTheFilterIsASandboxViolationNamingTheCall) {
  auto j = check([](auto&) {
    return FakeLaunch{.killed_by = SIGSYS,
                      .last_words = "kforge-run-cuda: forbidden system call clone (56)\n"};
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_EQ(j->reason,
            "check set 1: forbidden system call clone (56): kernels may compute, allocate memory "
            "and start threads, nothing else");
  // Without the runner's line the filter is still named.
  auto quiet = check([](auto&) { return FakeLaunch{.killed_by = SIGSYS}; });
  ASSERT_TRUE(quiet);
  EXPECT_EQ(quiet->verdict, Verdict::sandbox_violation);
  EXPECT_NE(quiet->reason.find("seccomp filter"), std::string::npos) << quiet->reason;
  // Any other death is a runtime error.
  auto crash = check([](auto&) { return FakeLaunch{.killed_by = SIGSEGV}; });
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->verdict, Verdict::runtime_error);
}

// Work left on another stream runs at the device-wide synchronization inside call(): its outputs
// are there when the judge reads them (the real device's sync is exercised by scripts/gpu-check).
TEST_F(GpuJudgeTest, WorkOnAnotherStreamIsWaitedForBeforeOutputsAreRead) {
  EXPECT_FALSE(check([](auto& a) {
    FakeLaunch l;
    l.pending = [&a] { add(a); };
    return l;
  }));
}

// Work launched after the call returned, as on the H200: the call returns at once and a host
// thread launches the (correct) work ~0.3 ms later. It was judged correct there, because the
// outputs were read with a plain copy that waited for it. The outputs peeked at the return lack
// it, and the reread after the settle window shows it landed late.
TEST_F(GpuJudgeTest, WorkLaunchedAfterTheCallReturnedIsCaughtInTheCheck) {
  auto j = check([](auto& a) {
    FakeLaunch l{.ms = 0.086};
    l.late = [a]() mutable { add(a); };
    return l;
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("output 'z' changed after the call had returned"), std::string::npos)
      << j->reason;
}

// The same kernel when timed: right when checked (its late work done inside the call), then on
// timed calls 0.086 ms with the 1.27 ms of work launched after the return. It was timed 15x too
// fast on the H200; here the timed pair that does it fails.
TEST_F(GpuJudgeTest, WorkLaunchedAfterATimedCallReturnedIsNeverTimedAsTheKernels) {
  for (bool batches : {false, true}) {
    int calls = 0;
    FakeGpuDevice cand(
        [&](auto& a) {
          if (++calls <= 2) return add(a, 1.27);
          FakeLaunch l{.ms = 0.086};
          l.late = [a]() mutable { add(a); };
          return l;
        },
        &clock_);
    FakeGpuDevice partner([](auto& a) { return add(a, 1.3); }, &clock_);
    cand.batches_supported = partner.batches_supported = batches;
    auto t = time(cand, partner);
    ASSERT_TRUE(t.failure);
    EXPECT_EQ(t.failure->verdict, Verdict::sandbox_violation) << t.failure->reason;
    EXPECT_NE(t.failure->reason.find(batches ? "timed batch" : "timed pair 3, the kernel"),
              std::string::npos)
        << t.failure->reason;
    EXPECT_NE(t.failure->reason.find("changed after the call had returned"), std::string::npos)
        << t.failure->reason;
    for (double ms : t.candidate_ms) EXPECT_DOUBLE_EQ(ms, 1.27);
  }
}

// The same escape inside a batch, on a call that is not the last: the call's outputs are
// snapshotted the instant the device is idle, before the late work lands, and a call compared
// with the partner reads them poisoned.
TEST_F(GpuJudgeTest, WorkLaunchedAfterACallInsideABatchIsCaughtByThePartnersComparison) {
  int calls = 0;
  FakeGpuDevice cand(
      [&](auto& a) {
        if (++calls <= 2 || calls % 2 == 0) return add(a, 0.01);
        FakeLaunch l{.ms = 0.001};
        l.late = [a]() mutable { add(a); };
        return l;
      },
      &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a, 0.01); }, &clock_);
  auto t = time(cand, partner);
  ASSERT_TRUE(t.failure);
  EXPECT_TRUE(t.failure->verdict == Verdict::incorrect ||
              t.failure->verdict == Verdict::sandbox_violation)
      << t.failure->reason;
}

// A kernel whose device work never finishes, though the call returned (its spinner launched on a
// stream the call's plain copies do not wait for): on the H200 the outputs were read while it ran
// and the kernel was `incorrect` after 0.1 s. The device must be idle by the deadline: a timeout.
TEST_F(GpuJudgeTest, ADeviceStillBusyAfterTheCallIsATimeoutNotIncorrect) {
  auto j = check([](auto& a) {
    as_floats(a[2])[0] = 0.0f;  // one element written, the spinner still running
    return FakeLaunch{.ms = 0.05, .busy_after_return = true};
  });
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::timeout) << j->reason;
  EXPECT_NE(j->reason.find("still busy"), std::string::npos) << j->reason;
}

// A host thread that goes on computing after the return: the process must settle first.
TEST_F(GpuJudgeTest, AHostThreadStillRunningAfterTheCallIsCaught) {
  FakeGpuDevice device(
      [](auto& a) {
        auto l = add(a);
        l.host_keeps_running = true;
        return l;
      },
      &clock_);
  auto buffers = allocate_set(device, task_);
  auto sets = check_sets(3);
  auto j = gpu_check(device, *buffers, task_, sets.inputs, sets.references, 5.0, e_);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("kept running after the call returned"), std::string::npos);
  EXPECT_EQ(device.settles(), 1);
}

TEST_F(GpuJudgeTest, TimingIsPairedOnKforgesClockWithAColdL2BeforeEveryCall) {
  FakeGpuDevice cand([](auto& a) { return add(a, 1.0); }, &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a, 3.0); }, &clock_);
  cand.batches_supported = partner.batches_supported = false;
  GpuTimingInfo info;
  auto t = time(cand, partner, 12, &info);
  EXPECT_FALSE(info.batched);
  EXPECT_EQ(info.why_not_batched, "this fake times call by call");
  ASSERT_FALSE(t.failure) << t.failure->reason;
  ASSERT_EQ(t.candidate_ms.size(), 12u);
  ASSERT_EQ(t.partner_ms.size(), 12u);
  for (std::size_t i = 0; i < t.candidate_ms.size(); ++i) {
    EXPECT_DOUBLE_EQ(t.candidate_ms[i], 1.0);
    EXPECT_DOUBLE_EQ(t.partner_ms[i], 3.0);
  }
  EXPECT_EQ(cand.l2_flushes(), cand.calls());
  EXPECT_EQ(partner.l2_flushes(), partner.calls());
}

// The inputs change every pair (a fresh perturbation) and both sides of a pair see the same ones.
TEST_F(GpuJudgeTest, EveryPairGetsFreshlyPerturbedInputsSharedByBothSides) {
  std::vector<float> cand_x0, partner_x0;
  FakeGpuDevice cand(
      [&](auto& a) {
        cand_x0.push_back(as_floats(a[0])[5]);
        return add(a);
      },
      &clock_);
  FakeGpuDevice partner(
      [&](auto& a) {
        partner_x0.push_back(as_floats(a[0])[5]);
        return add(a);
      },
      &clock_);
  auto t = time(cand, partner, 8);
  ASSERT_FALSE(t.failure);
  EXPECT_EQ(cand_x0, partner_x0);
  EXPECT_EQ(std::set<float>(cand_x0.begin(), cand_x0.end()).size(), cand_x0.size());
}

// A kernel right on the checked inputs but serving a stale answer when timed (a cache keyed on
// the buffer's address) is caught by comparing every timed output with the partner's.
TEST_F(GpuJudgeTest, AStaleResultInATimedCallIsIncorrect) {
  std::vector<float> cached;
  FakeGpuDevice cand(
      [&](auto& a) {
        if (cached.empty()) {
          add(a);
          cached.assign(as_floats(a[2]), as_floats(a[2]) + kN);
        }
        std::memcpy(as_floats(a[2]), cached.data(), kN * 4);
        return FakeLaunch{.ms = 0.1};
      },
      &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a); }, &clock_);
  auto t = time(cand, partner);
  ASSERT_TRUE(t.failure);
  EXPECT_EQ(t.failure->verdict, Verdict::incorrect);
  EXPECT_NE(t.failure->reason.find("partner"), std::string::npos);
}

// In batches: each call's figure is its events' time; a short kernel gets many calls per sample;
// every call, null calls included, starts on a cold L2.
TEST_F(GpuJudgeTest, BatchesTimeEachCallByItsEventsWithManyCallsForShortKernels) {
  FakeGpuDevice cand([](auto& a) { return add(a, 0.004); }, &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a, 0.012); }, &clock_);
  GpuTimingInfo info;
  auto t = time(cand, partner, 12, &info);
  ASSERT_FALSE(t.failure) << t.failure->reason;
  EXPECT_TRUE(info.batched);
  EXPECT_EQ(info.calls_per_sample, 64);  // 2 ms of the slower side's 0.012 ms calls, at most 64
  ASSERT_EQ(t.candidate_ms.size(), 12u);
  for (std::size_t i = 0; i < t.candidate_ms.size(); ++i) {
    EXPECT_NEAR(t.candidate_ms[i], 0.004, 1e-12);
    EXPECT_NEAR(t.partner_ms[i], 0.012, 1e-12);
  }
  EXPECT_EQ(cand.calls(), 1 + 12 * 64);        // one warm-up call, then 12 samples of 64
  EXPECT_GT(cand.l2_flushes(), cand.calls());  // the overhead's null calls flush too
  EXPECT_EQ(cand.batches(), partner.batches());
}

// Work the kernel put on a stream of its own is missed by the events on the given stream; the
// runner's clock to the device-wide synchronization holds it, and that is the call's figure.
TEST_F(GpuJudgeTest, WorkOnAStreamOfTheKernelsOwnIsTimedByTheRunnersClock) {
  FakeGpuDevice cand(
      [](auto& a) {
        auto l = add(a, 0.1);
        l.off_stream_ms = 2.0;
        return l;
      },
      &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a, 1.0); }, &clock_);
  auto t = time(cand, partner);
  ASSERT_FALSE(t.failure) << t.failure->reason;
  for (double ms : t.candidate_ms) EXPECT_NEAR(ms, 2.1, 1e-9);
}

// The times come from the kernel's own process, which a kernel could rewrite: kforge's clock
// around every batch bounds them. Above: no call may take longer than kforge saw. Below: over
// the run they must account for kforge's clock less the cost of the same batches without calls.
TEST_F(GpuJudgeTest, TimesTheProcessReportsAreBoundedByKforgesClock) {
  for (double factor : {0.5, 2.0}) {
    FakeGpuDevice cand([](auto& a) { return add(a, 1.0); }, &clock_);
    FakeGpuDevice partner([](auto& a) { return add(a, 1.0); }, &clock_);
    cand.report_factor = factor;
    auto t = time(cand, partner);
    ASSERT_TRUE(t.failure) << factor;
    EXPECT_EQ(t.failure->verdict, Verdict::sandbox_violation) << t.failure->reason;
    EXPECT_NE(t.failure->reason.find(factor < 1 ? "cannot be trusted" : "on kforge's clock"),
              std::string::npos)
        << t.failure->reason;
  }
  FakeGpuDevice honest([](auto& a) { return add(a, 1.0); }, &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a, 1.0); }, &clock_);
  EXPECT_FALSE(time(honest, partner).failure);
}

// A kernel that writes an input while timed: the last call's inputs are read back and compared
// with kforge's own perturbation of them (the device made them from the pristine copies).
TEST_F(GpuJudgeTest, AnInputWrittenWhileTimedIsInputModified) {
  int calls = 0;
  FakeGpuDevice cand(
      [&](auto& a) {
        auto l = add(a);
        if (++calls > 4) as_floats(a[1])[3] = 7.0f;
        return l;
      },
      &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a); }, &clock_);
  auto t = time(cand, partner);
  ASSERT_TRUE(t.failure);
  EXPECT_EQ(t.failure->verdict, Verdict::input_modified) << t.failure->reason;
  EXPECT_NE(t.failure->reason.find("input 'y'"), std::string::npos) << t.failure->reason;
}

// The batch's inputs are kforge's perturbation, bit for bit: what the host gives for the same
// seed (core::perturb), so the device and the host agree on every pair.
TEST_F(GpuJudgeTest, BatchedInputsAreKforgesPerturbationOfThePristineSet) {
  std::vector<std::vector<float>> seen;
  FakeGpuDevice cand(
      [&](auto& a) {
        seen.emplace_back(as_floats(a[0]), as_floats(a[0]) + kN);
        return add(a);
      },
      &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a); }, &clock_);
  auto t = time(cand, partner, 3);
  ASSERT_FALSE(t.failure) << t.failure->reason;
  ASSERT_FALSE(seen.empty());
  const auto pristine = check_sets(1).inputs[0];
  // The timing's seeds are 1, 2, ...: the overhead's null batches draw 3 x 8 per side first, then
  // the generator's own seed, then one per call.
  bool found = false;
  for (std::uint64_t s = 1; s < 200 && !found; ++s) {
    std::vector<float> want(kN);
    core::perturb(core::DType::f32, pristine.tensors[0].data(), want.data(), kN,
                  s ^ 0x9E3779B97F4A7C15ULL, 0.05);
    found = want == seen.back();
  }
  EXPECT_TRUE(found);
}

// Ctrl-C (EvalOptions::cancel, passed as the request's cancel) stops the timing before its next
// pair, in batches and call by call: interrupted, no verdict on the kernel.
TEST_F(GpuJudgeTest, CtrlCStopsTheTimingBeforeItsNextPair) {
  for (bool batches : {true, false}) {
    std::atomic<bool> cancel{false};
    int calls = 0;
    FakeGpuDevice cand(
        [&](auto& a) {
          if (++calls == 3) cancel = true;
          return add(a);
        },
        &clock_);
    FakeGpuDevice partner([](auto& a) { return add(a); }, &clock_);
    cand.batches_supported = partner.batches_supported = batches;
    auto cb = allocate_set(cand, task_);
    auto pb = allocate_set(partner, task_);
    PairedTimingRequest req;
    req.budget_s = 0;
    req.warmup_s = 0;
    req.min_pairs = req.max_pairs = 1000;
    req.cancel = &cancel;
    std::uint64_t next = 1;
    auto t = gpu_paired_timing(
        cand, *cb, &partner, &*pb, task_, check_sets(1).inputs[0], req, [&] { return next++; },
        [this] { return clock_; });
    ASSERT_TRUE(t.failure) << batches;
    EXPECT_EQ(t.failure->verdict, Verdict::interrupted) << t.failure->reason;
    EXPECT_LT(calls, 200) << batches;
  }
}

TEST_F(GpuJudgeTest, AKernelThatHangsWhileTimedIsATimeout) {
  int calls = 0;
  FakeGpuDevice cand([&](auto& a) { return ++calls > 3 ? FakeLaunch{.hang = true} : add(a); },
                     &clock_);
  FakeGpuDevice partner([](auto& a) { return add(a); }, &clock_);
  auto t = time(cand, partner);
  ASSERT_TRUE(t.failure);
  EXPECT_EQ(t.failure->verdict, Verdict::timeout);
}

}  // namespace
}  // namespace kforge::eval
