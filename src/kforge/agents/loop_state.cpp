// Turning the run's state into the text the prompts carry: each fact in one function, so that a
// request that shows it shows it once.
#include "kforge/agents/loop_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/agents/cheaper_algorithm.h"
#include "kforge/agents/task_notes.h"
#include "kforge/core/fs.h"
#include "kforge/core/shorten.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::agents {
namespace {

// A plan's Strategy section is what the planner learns from an earlier attempt: kept whole up to
// this (longer than any seen so far), else cut at a word and the cut said.
constexpr std::size_t kStrategyBytes = 4000;
constexpr std::size_t kFailureBytes = 800;

std::string init_text(const core::InitSpec& i) {
  switch (i.dist) {
    case core::Dist::normal:
      return fmt::format("normal(mean {:g}, std {:g})", i.a, i.b);
    case core::Dist::uniform:
      return fmt::format("uniform [{:g}, {:g})", i.a, i.b);
    case core::Dist::randint:
      return fmt::format("integers in [{:g}, {:g})", i.a, i.b);
    case core::Dist::constant:
      return fmt::format("constant {:g}", i.a);
    case core::Dist::arange:
      return fmt::format("arange(start {:g}, step {:g})", i.a, i.b);
    case core::Dist::custom:
      return "structured, drawn by the task's generate.cpp (see the notes)";
  }
  return "?";
}

toolchain::Compiler& kernel_compiler(const LoopState& s) {
  return s.dialect.compiler ? *s.dialect.compiler : s.task->compiler();
}

std::string compiler_text(const LoopState& s) {
  auto& c = kernel_compiler(s);
  return fmt::format("Compiler: {}, with {}.\n", c.version(),
                     fmt::join(c.flags_for(toolchain::Role::candidate), " "));
}

std::string caches_text(const eval::MachineProfile& m) {
  std::string caches;
  for (const auto& c : m.caches)
    if (c.type != "Instruction")
      caches += fmt::format(
          "{}L{} {} KiB{}", caches.empty() ? "" : ", ", c.level, c.size_bytes >> 10,
          c.shared_by_cpus > 1 ? fmt::format(" shared by {} CPUs", c.shared_by_cpus) : " per core");
  return caches;
}

std::string core_text(const eval::MachineProfile& m) {
  std::string s = m.microarch.empty() ? "an unknown core" : m.microarch;
  s += fmt::format(" (family {}, model {})", m.cpu_family, m.cpu_model_number);
  if (m.clock_ghz > 0) s += fmt::format(", {:.2f} GHz ({})", m.clock_ghz, m.clock_source);
  return s;
}

// A speedup by the name of what it is against: "1.11x against XLA (jax.jit); 95% interval …".
std::string speedup_text(const eval::SpeedupStats& s, const std::string& partner) {
  return fmt::format("{:.2f}x against {}; 95% interval {:.2f}–{:.2f}x", s.median, partner, s.ci_low,
                     s.ci_high);
}

std::string attempt_result(const LoopState& s, const AttemptRecord& a) {
  std::string out = a.verdict;
  if (a.median_ms) out += fmt::format(", {:.4g} ms", *a.median_ms);
  if (a.speedup) out += ", " + speedup_text(*a.speedup, s.baseline_name);
  if (a.median_ms) {
    out += fmt::format(", {:.0f}% of the roofline", 100 * a.roofline);
    if (auto caveat = roofline_caveat(fewer_operations(s, a.strategy)); !caveat.empty())
      out += " (" + caveat + ")";
  }
  return out;
}

// `text` whole up to `max_bytes`, else cut at the last space before it with the cut said: a
// plan's later lines (its blocking, its reasons) are what "[…]" used to hide.
std::string cut_at_word(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  auto at = text.find_last_of(" \n", max_bytes);
  if (at == std::string::npos || at == 0) at = max_bytes;  // no space: a byte cut, said as such
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
    --at;  // never inside a UTF-8 character
  return fmt::format("{} […] ({} more bytes of it cut)", text.substr(0, at), text.size() - at);
}

std::string diagnosis_text(const Diagnosis& d) {
  return fmt::format("{} (bottleneck: {}). Suggested next: {}", d.diagnosis, d.bottleneck,
                     d.suggestion);
}

}  // namespace

std::string describe_task(const eval::TaskContext& ctx, const KernelDialect& dialect) {
  const auto& spec = ctx.spec();
  const auto& t = ctx.task();
  std::string s = fmt::format("{} — {}\nInputs, in the kernel's order:\n", spec.id, spec.title);
  for (std::size_t i = 0; i < t.inputs.size(); ++i)
    s += fmt::format("  {} [{}]: {}\n", t.inputs[i].name, fmt::join(spec.inputs[i].shape, ", "),
                     init_text(t.inputs[i].init));
  s += "Outputs:\n";
  for (std::size_t i = 0; i < t.outputs.size(); ++i)
    s += fmt::format("  {} [{}]\n", t.outputs[i].name, fmt::join(spec.outputs[i].shape, ", "));
  s += fmt::format(
      "Correct when every element satisfies |got − expected| ≤ {:g} + {:g}·|expected|.\n", t.atol,
      t.rtol);
  if (t.flops > 0) s += fmt::format("Cost model: {:.4g} FLOP, {:.4g} bytes.\n", t.flops, t.bytes);
  s += fmt::format(
      "\nkforge_task.h, generated for size '{}' (every kernel includes it; use its names and "
      "types):\n```cpp\n{}```\n",
      t.size, dialect.header.empty() ? ctx.header() : dialect.header);
  if (auto notes = task_notes(spec, t.size); !notes.empty())
    s += "\nNotes on the task (from its task.toml and generator):\n" + notes;
  auto reference = core::read_text(spec.reference_path());
  s += "\nThe reference implementation (what must be computed; it is slow and plain on "
       "purpose):\n```cpp\n";
  s += reference ? *reference : "(unreadable: " + reference.error().message + ")\n";
  s += "```\n";
  return s;
}

namespace {

std::string gpu_limits_text(const std::string& arch) {
  const auto l = toolchain::arch_limits(arch);
  return fmt::format(
      "Limits per SM ({}): {} threads, {} blocks, {} registers (allocated per warp in units of "
      "{}; at most 255 per thread), {} KiB shared memory; {} KiB per block (above 48 KiB only as "
      "dynamic shared memory after cudaFuncSetAttribute). 32 threads per warp, 32 shared-memory "
      "banks of 4 bytes.\n",
      arch, l.max_threads_per_sm, l.max_blocks_per_sm, l.registers_per_sm, l.register_granularity,
      l.shared_per_sm >> 10, l.shared_per_block >> 10);
}

std::string describe_gpu(const LoopState& s) {
  const KernelDialect& d = s.dialect;
  std::string out;
  if (const auto* g = d.device) {
    const auto& dev = g->device;
    out = fmt::format(
        "GPU: {} ({}, compute capability {}.{}): {} SMs, {:.0f} GiB memory, {} MiB L2, SM clock "
        "{:.2f} GHz.\n",
        dev.name, dev.arch(), dev.major, dev.minor, dev.sms,
        static_cast<double>(dev.memory_bytes) / (1ull << 30), dev.l2_bytes >> 20,
        dev.clock_khz / 1e6);
    const auto& p = g->peaks;
    out += fmt::format(
        "Measured peaks: {:.0f} GFLOP/s FP32 FMA, {:.0f} GFLOP/s tensor cores with FP16 inputs "
        "and {:.0f} with TF32 (mma.sync), {:.0f} GB/s memory bandwidth; FP32 ridge point {:.1f} "
        "FLOP/byte.\n",
        p.fp32_fma_gflops, p.tensor_f16_gflops, p.tensor_tf32_gflops, p.hbm_gbps, p.ridge_fp32());
  } else {
    out = fmt::format(
        "GPU: none on the machine that writes this kernel ({}); kernels are compiled for {} and "
        "judged where a device is; plan for the architecture's limits below.\n",
        d.device_missing.empty() ? "no CUDA device" : d.device_missing, d.arch);
  }
  out += gpu_limits_text(d.device ? d.device->device.arch() : d.arch);
  out += fmt::format("Kernels are compiled for {}.\n", d.arch);
  return out + compiler_text(s);
}

}  // namespace

std::string describe_machine(const LoopState& s) {
  if (s.dialect.gpu) return describe_gpu(s);
  const auto& m = *s.machine;
  const int n = s.threads;
  double balance = m.peak_gbps(n) > 0 ? m.peak_gflops(n) / m.peak_gbps(n) : 0;
  std::string out = fmt::format("CPU: {}: {}; {} logical CPUs, {} physical cores.\n", m.cpu_model,
                                core_text(m), m.logical_cpus, m.physical_cores);
  if (!m.microarch_note.empty()) out += "Core: " + m.microarch_note + ".\n";
  out += fmt::format("ISA: {} (no instruction outside this list is available).\n",
                     fmt::join(m.isa, " "));
  out += fmt::format("Caches: {}.\n", caches_text(m));
  out += fmt::format(
      "Kernels run with {} OpenMP thread(s); measured peaks with {}: {:.1f} GFLOP/s f32 FMA, "
      "{:.1f} GB/s (STREAM triad); balance {:.1f} FLOP/byte.\n",
      n, n, m.peak_gflops(n), m.peak_gbps(n), balance);
  return out + compiler_text(s);
}

namespace {

// Memory- or compute-bound by the cost model: intensity (FLOP/byte) below or above the balance
// of the peaks (FLOP/byte where the roofline turns); "" when either is unknown.
std::string bound_by(double flops, double bytes, double balance) {
  if (flops <= 0 || bytes <= 0 || balance <= 0) return "";
  return flops / bytes < balance ? "memory" : "compute";
}

// The widest vectors -march=native gives a kernel on this CPU, from the flags machine.cpp read.
std::string widest_vectors(const eval::MachineProfile& m) {
  auto has = [&](const char* f) { return std::find(m.isa.begin(), m.isa.end(), f) != m.isa.end(); };
  if (has("avx512f")) return "avx512";
  if (has("avx2")) return "avx2";
  return m.isa.empty() ? "" : "sse";
}

}  // namespace

PlaybookFit playbook_fit(const LoopState& s) {
  PlaybookFit fit;
  if (!s.task) return fit;
  fit.task_tags = s.task->spec().tags;
  const auto& t = s.task->task();
  if (s.dialect.gpu) {
    if (s.dialect.device)
      fit.bound = bound_by(t.flops, t.bytes, s.dialect.device->peaks.ridge_fp32());
  } else if (s.dialect.roofline && s.machine) {
    const double gbps = s.machine->peak_gbps(s.threads);
    fit.bound = bound_by(t.flops, t.bytes, gbps > 0 ? s.machine->peak_gflops(s.threads) / gbps : 0);
    fit.isa = widest_vectors(*s.machine);
  }
  return fit;
}

std::string describe_budget(const LoopState& s) {
  const RunBudget& b = s.budget;
  std::string out;
  if (b.iterations == 0)
    out = "No iteration limit: an engineer runs this session one step at a time.\n";
  else {
    out = fmt::format("Iteration {} of {} ({} more after this one).", b.iteration, b.iterations,
                      std::max(0, b.iterations - b.iteration));
    out += fmt::format(
        " The {} stops after {} iteration(s) in a row without a faster correct kernel; {} so far",
        b.unit, b.patience, b.without_improvement);
    out +=
        b.without_improvement + 1 >= b.patience
            ? fmt::format(": unless this one beats the best kernel, the {} ends with it.\n", b.unit)
            : ".\n";
  }
  if (b.fixes_per_kernel > 0)
    out += fmt::format("The debugger gets up to {} fix(es) per kernel.\n", b.fixes_per_kernel);
  if (s.search) out += describe_search_budget(*s.search);
  return out;
}

std::string fewer_operations(const LoopState& s, std::string_view text) {
  bool degenerate = false;
  if (s.task)
    for (const auto& tag : s.task->spec().tags) degenerate = degenerate || tag == "degenerate";
  return fewer_operations_algorithm(text, degenerate);
}

std::string describe_evaluation(const eval::Evaluation& e, const std::string& partner,
                                const std::string& caveat) {
  // A timed correct kernel's reason repeats the speedup the lines below give with its interval.
  if (!e.correct() || !e.candidate)
    return fmt::format("verdict: {} — {}\n", eval::verdict_name(e.verdict), e.reason);
  std::string s = "verdict: correct\n";
  s += fmt::format("kernel median {:.4g} ms (p10 {:.4g}, p90 {:.4g}) over {} pairs",
                   e.candidate->median_ms, e.candidate->p10_ms, e.candidate->p90_ms,
                   e.candidate->samples);
  if (e.baseline)
    s += fmt::format("; {} median {:.4g} ms in the same pairs", partner, e.baseline->median_ms);
  s += "\n";
  if (e.speedup)
    s += fmt::format("speedup {} (p10 {:.2f}x, p90 {:.2f}x)\n", speedup_text(*e.speedup, partner),
                     e.speedup->p10, e.speedup->p90);
  std::string notes = e.roofline_note;
  if (!caveat.empty()) notes += (notes.empty() ? "" : "; ") + caveat;
  s += fmt::format("{:.2f} GFLOP/s, {:.2f} GB/s, {:.1f}% of the roofline{}", e.gflops, e.gbps,
                   100 * e.roofline, notes.empty() ? "" : " (" + notes + ")");
  s += e.profile ? " (" + e.profile->bound_text() + ")\n" : "\n";
  s += fmt::format(
      "machine load while timing: {:.1f} (1-minute average){}\n", e.load_average,
      e.machine_busy
          ? fmt::format(": busy ({}); absolute times are unreliable, paired ratios less so",
                        e.busy_reason)
          : "");
  return s;
}

std::string describe_hot_spots(const eval::Evaluation& e) {
  return e.profile ? e.profile->samples_text() : "(not profiled)\n";
}

std::string describe_vectorization(const eval::Evaluation& e) {
  return e.profile ? toolchain::format_vector_remarks(e.profile->vectorization)
                   : "(not available)\n";
}

std::string describe_resources(const eval::Evaluation& e) {
  if (e.compile.resources.empty()) return "(not a GPU kernel, or ptxas reported nothing)\n";
  std::string out = toolchain::format_resources(e.compile.resources);
  if (!out.empty() && out.back() != '\n') out += "\n";
  if (!e.counters.empty())
    out += "Hardware counters (Nsight Compute, one check call):\n" + eval::format_ncu(e.counters);
  else if (!e.counters_note.empty())
    out += "No hardware counters: " + e.counters_note + "\n";
  return out;
}

namespace {

// The partner by the name the loop paired with, its latest time when there is one (another
// target's partner is timed beside each kernel: never "0 ms"), and every speedup said to be
// against it.
std::string partner_standing(const LoopState& s) {
  if (s.baseline_ms <= 0)
    return fmt::format(
        "Partner to beat: {}, timed beside each kernel; none timed yet. Every speedup below is "
        "against it.\n",
        s.baseline_name);
  // Its rate by the cost model, from this measurement: what task notes used to guess.
  const double flops = s.task ? s.task->task().flops : 0;
  return fmt::format(
      "Partner to beat: {}, {:.4g} ms ({}){}; every speedup below is against it.\n",
      s.baseline_name, s.baseline_ms, s.baseline_when.empty() ? "measured alone" : s.baseline_when,
      flops > 0 ? fmt::format(", {:.3g} GFLOP/s by the cost model", flops / (s.baseline_ms * 1e6))
                : "");
}

std::string other_partners(const LoopState& s) {
  std::string out;
  for (const auto& p : s.other_partners)
    out += fmt::format("Also measured: {}, {:.4g} ms ({}).\n", p.name, p.median_ms, p.when);
  return out;
}

// The plan's strategy of the best kernel's iteration, for what its roofline counts.
std::string best_strategy(const LoopState& s) {
  for (const auto& a : s.history)
    if (s.best && a.iteration == s.best->iteration) return a.strategy;
  return "";
}

// The kernel a search expansion grows, with its figures and hot spots, and with its source while
// this expansion has no kernel of its own; then the search's best.
std::string search_standing(const LoopState& s, bool with_source) {
  const SearchStanding& x = *s.search;
  const SearchNode& p = x.parent;
  std::string out;
  if (x.parent_source.empty()) {
    out += fmt::format("\nThis expansion grows {}, which has no kernel: write one from scratch.\n",
                       p.label);
  } else if (p.correct) {
    out += fmt::format(
        "\nThe kernel this expansion grows: {} (strategy {}{}), correct. Every kernel made here "
        "is timed side by side against it.\n",
        p.label, p.strategy, p.plan_line.empty() ? "" : ": " + p.plan_line);
    if (p.evaluation) {
      const auto caveat =
          roofline_caveat(fewer_operations(s, p.plan_line + "\n" + x.parent_source));
      out += describe_evaluation(*p.evaluation, s.baseline_name, caveat);
      if (p.evaluation->profile)
        out += "Where its time goes:\n" + describe_hot_spots(*p.evaluation);
    } else {
      out += search_node_line(p, s.baseline_name) + "\n";
      if (!p.hot_spots.empty()) out += "Where its time goes:\n" + p.hot_spots + "\n";
    }
    if (!p.vs_parent.empty()) out += "Side by side with its own parent: " + p.vs_parent + "\n";
  } else {
    out += fmt::format("\nThe kernel this expansion grows: {} (strategy {}), not correct: {}.\n",
                       p.label, p.strategy, search_node_line(p, s.baseline_name));
  }
  if (with_source && !x.parent_source.empty())
    out += "Its source:\n```" + s.dialect.fence + "\n" + x.parent_source + "```\n";
  if (x.best_is_parent)
    out += fmt::format("{} is the search's best so far.\n", p.label);
  else if (x.best)
    out += fmt::format("The search's best so far: {} ({}): {}.\n", x.best->label, x.best->strategy,
                       search_node_line(*x.best, s.baseline_name));
  else
    out += "The search has no correct kernel yet.\n";
  return out;
}

// For the profiler: the kernel the expansion grew from (which this one must beat side by side)
// and the search's best, figures only.
std::string search_figures(const LoopState& s) {
  const SearchStanding& x = *s.search;
  const SearchNode& p = x.parent;
  std::string out;
  if (p.correct) {
    out += fmt::format("This expansion grew from {}, which this kernel must beat side by side:\n",
                       p.label);
    const auto caveat = roofline_caveat(fewer_operations(s, p.plan_line + "\n" + x.parent_source));
    out += p.evaluation ? describe_evaluation(*p.evaluation, s.baseline_name, caveat)
                        : search_node_line(p, s.baseline_name) + "\n";
  } else {
    out += fmt::format("This expansion grew from {}, which has no correct kernel.\n", p.label);
  }
  if (x.best_is_parent)
    out += fmt::format("{} is the search's best so far.\n", p.label);
  else if (x.best)
    out += fmt::format("The search's best so far: {} ({}): {}.\n", x.best->label, x.best->strategy,
                       search_node_line(*x.best, s.baseline_name));
  return out;
}

}  // namespace

std::string describe_standing(const LoopState& s) {
  std::string out = partner_standing(s) + other_partners(s);
  if (s.dialect.roofline)
    out += fmt::format("At 100% of the roofline the kernel would take {:.4g} ms.\n", s.roofline_ms);
  if (!s.peaks_note.empty())
    out += "The machine's " + s.peaks_note + ".\n";
  else if (s.best && !s.best->evaluation.timing_is_performance())
    out += fmt::format(
        "Timing basis {}: interpret-mode times are not performance, so only correctness decides "
        "here: the first correct kernel is the best.\n",
        s.best->evaluation.timing_basis);
  if (s.search) out += search_standing(s, !s.best);
  if (!s.best)
    return out + (s.search && s.search->parent.correct ? "" : "No correct kernel yet.\n");
  const BestKernel& b = *s.best;
  const auto caveat = roofline_caveat(fewer_operations(s, best_strategy(s) + "\n" + b.source));
  out += fmt::format("\nBest kernel so far{} (iteration {}):\n{}",
                     s.search ? " in this expansion" : "", b.iteration,
                     describe_evaluation(b.evaluation, s.baseline_name, caveat));
  if (b.evaluation.profile) out += "Where its time goes:\n" + describe_hot_spots(b.evaluation);
  if (!b.tuning.empty()) out += "Its tuning:\n" + b.tuning;
  if (b.diagnosis) out += "Profiler's diagnosis: " + diagnosis_text(*b.diagnosis) + "\n";
  out += "Its source:\n```" + s.dialect.fence + "\n" + b.source + "```\n";
  return out;
}

std::string describe_best_figures(const LoopState& s, const std::string& source) {
  std::string out = partner_standing(s) + other_partners(s);
  if (!s.peaks_note.empty()) out += "The machine's " + s.peaks_note + ".\n";
  if (s.search) out += search_figures(s);
  if (!s.best)
    return out +
           (s.search && s.search->parent.correct ? "" : "No correct kernel before this one.\n");
  const BestKernel& b = *s.best;
  if (b.source == source)
    return out + fmt::format("This kernel is the best so far (iteration {}).\n", b.iteration);
  const auto caveat = roofline_caveat(fewer_operations(s, best_strategy(s) + "\n" + b.source));
  out += fmt::format(
      "The best kernel so far (iteration {}), which this one must beat side by "
      "side:\n{}",
      b.iteration, describe_evaluation(b.evaluation, s.baseline_name, caveat));
  if (b.diagnosis) out += "Profiler's diagnosis of it: " + diagnosis_text(*b.diagnosis) + "\n";
  return out;
}

std::string describe_history(const LoopState& s) {
  // A search expansion's earlier attempts are its siblings and the path that led to its parent.
  const std::string search =
      s.search ? describe_search_history(*s.search, s.baseline_name) : std::string();
  if (s.history.empty() && s.events.empty())
    return s.search ? "None yet in this expansion.\n" + search
                    : "None yet: this is the first attempt.\n";
  std::string out = search.empty() ? "" : search + "In this expansion:\n";
  for (const auto& e : s.events) out += "- " + e + "\n";
  for (const auto& a : s.history) {
    // The best kernel's numbers, tuning and diagnosis are in the standing above: not again here.
    const bool best = s.best && s.best->iteration == a.iteration;
    out += best ? fmt::format("- Iteration {}: the best kernel so far (its evaluation is above).\n",
                              a.iteration)
                : fmt::format("- Iteration {}: {}.\n", a.iteration, attempt_result(s, a));
    if (!a.paired.empty()) out += "  Side by side with the best of the time: " + a.paired + "\n";
    if (!a.strategy.empty()) out += "  Tried: " + cut_at_word(a.strategy, kStrategyBytes) + "\n";
    if (!a.failure.empty())
      out += "  What went wrong: " + core::shorten(a.failure, kFailureBytes) + "\n";
    if (!a.tuning.empty() && !best) out += "  Tuning: " + a.tuning + "\n";
    if (a.diagnosis && !best) out += "  Profiler: " + diagnosis_text(*a.diagnosis) + "\n";
  }
  return out;
}

}  // namespace kforge::agents
