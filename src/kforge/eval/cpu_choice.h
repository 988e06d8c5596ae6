#pragma once
// Which CPUs an evaluation's kernel processes run on. Each process pins its threads to them (thread
// i to the i-th), so both sides of a pair run alike; the choice of those CPUs and of their order
// is made here, once per evaluation, and both processes get the same.
//
// Taking the first CPUs kforge may use (as the processes did by themselves) stacked every kernel
// of every concurrent evaluation on CPU 0: a parallel search's checks and warm-ups, a Python
// worker's compiles (its compiler children inherit the mask), and everything of two kforge
// processes at once, while the other CPUs idled. Measured on two CPUs: a test suite running four
// such evaluations at a time kept one CPU busy for 150 s. So the set is a window of `threads`
// consecutive allowed CPUs (neighbours, as before, so SMT siblings are not paired where the first
// CPUs were not), the least busy over a short sample; among equally busy windows a rotation
// spreads evaluations that start at the same moment on an idle machine.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kforge::eval {

// Busy ticks per CPU since boot, indexed by CPU number, from the "cpuN" lines of /proc/stat
// (user, nice, system, irq, softirq, steal); CPUs the text does not name read 0.
std::optional<std::vector<std::uint64_t>> parse_per_cpu_busy(std::string_view proc_stat);

// The window of `threads` consecutive entries of `allowed` with the fewest busy ticks in `busy`
// (indexed by CPU number; missing CPUs count as idle), ties going to the first window at or
// after `rotation` (modulo the window count); all of `allowed` when `threads` covers it. The
// window is turned so that its least busy CPU comes first: the runner pins thread i to the i-th,
// and thread 0 also runs the kernel's serial code.
std::vector<int> choose_cpus(const std::vector<int>& allowed, int threads,
                             const std::vector<std::uint64_t>& busy, unsigned rotation);

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus();

// choose_cpus over this process's allowed CPUs and a `sample_s` sample of /proc/stat, rotating
// by pid and a per-process count (so concurrent evaluations, in this process or in others,
// start apart). `sample_s` 0: no sample, the rotation alone (a check, which times nothing, need
// not wait 50 ms to be placed well).
std::vector<int> choose_cpus_now(int threads, double sample_s = 0.05);

}  // namespace kforge::eval
