// Turning the run's state into the text the prompts carry.
#include "kforge/agents/loop_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/core/task_header.h"

#include <fstream>
#include <sstream>

namespace kforge::agents {
namespace {

std::string init_text(const core::InitSpec& i) {
  switch (i.dist) {
    case core::Dist::normal: return fmt::format("normal(mean {:g}, std {:g})", i.a, i.b);
    case core::Dist::uniform: return fmt::format("uniform [{:g}, {:g})", i.a, i.b);
    case core::Dist::randint: return fmt::format("integers in [{:g}, {:g})", i.a, i.b);
    case core::Dist::constant: return fmt::format("constant {:g}", i.a);
    case core::Dist::arange: return fmt::format("arange(start {:g}, step {:g})", i.a, i.b);
    case core::Dist::custom: return "structured (task generator: see the task notes)";
  }
  return "?";
}

}  // namespace

std::string describe_task(const eval::TaskContext& ctx) {
  const auto& spec = ctx.spec();
  const auto& t = ctx.task();
  std::string s = fmt::format("{} — {}\n", spec.id, spec.title);
  if (!spec.notes.empty()) s += "Notes: " + spec.notes + "\n";
  s += fmt::format("Size '{}':", t.size);
  const auto* preset = spec.find_size(t.size);
  for (const auto& k : preset->order) s += fmt::format(" {}={}", k, static_cast<long long>(preset->symbols.at(k)));
  s += "\n";
  for (const auto& p : spec.params) {
    if (auto* d = std::get_if<double>(&p.value)) s += fmt::format("Param {} = {:g}\n", p.name, *d);
    else if (auto* i = std::get_if<std::int64_t>(&p.value)) s += fmt::format("Param {} = {}\n", p.name, *i);
  }
  for (const auto& in : t.inputs)
    s += fmt::format("Input  {} {} [{}]  {}\n", core::dtype_name(in.dtype), in.name, fmt::join(in.shape, ", "), init_text(in.init));
  for (const auto& out : t.outputs) s += fmt::format("Output {} {} [{}]\n", core::dtype_name(out.dtype), out.name, fmt::join(out.shape, ", "));
  s += fmt::format("Correct when every element satisfies |got − expected| ≤ {:g} + {:g}·|expected|.\n", t.atol, t.rtol);
  if (t.flops > 0) s += fmt::format("Cost model: {:.4g} FLOP, {:.4g} bytes.\n", t.flops, t.bytes);
  s += "Signature: " + core::kernel_signature(t) + "\n";
  s += "The reference implementation (what must be computed; it is slow and plain on purpose):\n```cpp\n";
  s += [&] {
    std::ifstream in(spec.reference_path());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  s += "```\n";
  return s;
}

std::string describe_machine(const eval::MachineProfile& m) {
  return fmt::format("{}, {} cores, {}", m.cpu_model, m.logical_cpus, fmt::join(m.isa, " "));
}

std::string describe_machine_detail(const eval::MachineProfile& m, int threads) {
  std::string caches;
  for (const auto& c : m.caches)
    if (c.type != "Instruction") caches += fmt::format("{}L{} {} KiB{}", caches.empty() ? "" : ", ", c.level, c.size_bytes >> 10,
                                                       c.shared_by_cpus > 1 ? " shared" : " per core");
  double balance = m.peak_gbps(threads) > 0 ? m.peak_gflops(threads) / m.peak_gbps(threads) : 0;
  return fmt::format(
      "{}\nCaches: {}\nMeasured peaks with {} thread(s): {:.1f} GFLOP/s f32 FMA, {:.1f} GB/s (STREAM triad); balance {:.1f} FLOP/byte.\n"
      "ISA to target: {} (no instruction outside this list is available).",
      describe_machine(m), caches, threads, m.peak_gflops(threads), m.peak_gbps(threads), balance, fmt::join(m.isa, " "));
}

std::string describe_evaluation(const eval::Evaluation& e) {
  std::string s = fmt::format("verdict: {} — {}\n", eval::verdict_name(e.verdict), e.reason);
  if (e.candidate) {
    s += fmt::format("kernel median {:.4g} ms (p10 {:.4g}, p90 {:.4g})", e.candidate->median_ms, e.candidate->p10_ms, e.candidate->p90_ms);
    if (e.baseline) s += fmt::format("; {} median {:.4g} ms", e.partner, e.baseline->median_ms);
    if (e.speedup) s += fmt::format("; speedup {:.2f}x", e.speedup->median);
    s += fmt::format("; {:.2f} GFLOP/s, {:.2f} GB/s, {:.1f}% of the roofline{}\n", e.gflops, e.gbps, 100 * e.roofline,
                     e.roofline_note.empty() ? "" : " (" + e.roofline_note + ")");
    if (e.machine_busy) s += fmt::format("timed on a busy machine ({}): absolute times are unreliable\n", e.busy_reason);
  }
  if (e.profile) s += e.profile->summary();
  return s;
}

std::string describe_standing(const LoopState& s) {
  std::string out = fmt::format("Baseline (PyTorch eager): {:.4g} ms. At 100% of the roofline the kernel would take {:.4g} ms.\n",
                                s.baseline_ms, s.roofline_ms);
  if (!s.best) return out + "No correct kernel yet.\n";
  out += fmt::format("Best kernel so far (iteration {}):\n{}", s.best->iteration, describe_evaluation(s.best->evaluation));
  if (s.best->diagnosis)
    out += fmt::format("Profiler's diagnosis: {} (bottleneck: {}); suggested next: {}\n", s.best->diagnosis->diagnosis,
                       s.best->diagnosis->bottleneck, s.best->diagnosis->suggestion);
  out += "```cpp\n" + s.best->source + "```\n";
  return out;
}

std::string describe_history(const LoopState& s) {
  if (s.history.empty()) return "None yet: this is the first attempt.\n";
  std::string out;
  for (const auto& a : s.history) {
    out += fmt::format("- iteration {}: {} → {}", a.iteration, a.strategy.substr(0, 300), a.verdict);
    if (a.speedup) out += fmt::format(", {:.2f}x the baseline, {:.0f}% of the roofline", *a.speedup, 100 * a.roofline);
    if (!a.note.empty()) out += fmt::format(". {}", a.note.substr(0, 400));
    out += "\n";
  }
  return out;
}

}  // namespace kforge::agents
