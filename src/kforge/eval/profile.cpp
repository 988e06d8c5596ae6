// addr2line for the samples; the roofline from the task's cost model and the measured peaks.
#include "kforge/eval/profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kforge/core/subprocess.h"
#include "kforge/eval/roofline.h"

namespace kforge::eval {

std::vector<HotLine> hot_lines_from_samples(const nlohmann::json& kernel_offsets,
                                            long total_samples, const std::string& shared_object,
                                            const std::string& file_name,
                                            const std::string& source) {
  std::vector<std::pair<std::uint64_t, long>> offsets;
  std::string addresses;
  // The runner's report is the kernel's to forge: entries of the wrong shape are skipped.
  for (const auto& o : kernel_offsets) {
    if (!o.is_array() || o.size() != 2 || !o[0].is_number_unsigned() || !o[1].is_number_integer())
      continue;
    offsets.emplace_back(o[0].get<std::uint64_t>(), o[1].get<long>());
    addresses += fmt::format("{:#x}\n", offsets.back().first);
  }
  std::vector<HotLine> out;
  if (offsets.empty()) return out;
  // -a prints each address before its (possibly inlined) frames, innermost first; the first frame
  // in the kernel's own file is the line to charge.
  auto r = core::run_process({"addr2line", "-a", "-f", "-C", "-i", "-e", shared_object},
                             {.timeout = std::chrono::seconds(30), .stdin_data = addresses});
  if (!r.success()) return out;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> src_lines;
  std::istringstream src(source);
  for (std::string l; std::getline(src, l);) src_lines.push_back(l);

  std::map<int, HotLine> by_line;
  std::size_t k = 0, i = 0;
  while (i < lines.size() && k < offsets.size()) {
    if (lines[i].rfind("0x", 0) != 0) {
      ++i;
      continue;
    }
    ++i;  // the address line
    int charged = 0;
    std::string function;
    while (i + 1 < lines.size() && lines[i].rfind("0x", 0) != 0) {
      std::string fn = lines[i], loc = lines[i + 1];
      i += 2;
      auto colon = loc.rfind(':');
      std::string file = loc.substr(0, colon);
      if (charged == 0 && colon != std::string::npos &&
          (file == file_name || file.ends_with("/" + file_name))) {
        charged = std::atoi(loc.c_str() + colon + 1);
        function = fn;
      }
    }
    long samples = offsets[k++].second;
    auto& h = by_line[charged];
    h.line = charged;
    h.samples += samples;
    if (h.function.empty())
      h.function = charged ? function : "(outside the kernel's source: inlined library code)";
  }
  for (auto& [line, h] : by_line) {
    h.share =
        total_samples ? static_cast<double>(h.samples) / static_cast<double>(total_samples) : 0;
    if (line >= 1 && line <= static_cast<int>(src_lines.size())) h.source = src_lines[line - 1];
    out.push_back(h);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return out;
}

// Only past a dominant line. The disassembly is cheap (one objdump of a few tens of KB, tens of
// milliseconds beside the seconds of sampling), but its text is ~1 KB of every profiler request.
// When samples spread over several lines, the hot lines already say where time goes; when one
// line holds most of them (a macro-expanded micro-kernel, an inlined library call), only its
// instructions say which load, FMA or gather costs.
void add_hot_instructions(Profile& p, const nlohmann::json& kernel_offsets,
                          const std::string& shared_object, const DisassemblerOptions& options) {
  long kernel_samples = 0;
  for (const auto& h : p.hot_lines) kernel_samples += h.samples;
  if (p.hot_lines.empty() || kernel_samples <= 0) return;
  const HotLine& top = p.hot_lines.front();  // hottest first
  const double share = static_cast<double>(top.samples) / static_cast<double>(kernel_samples);
  if (share < kDominantLineShare) return;
  p.hot_instructions =
      hot_instructions_from_samples(kernel_offsets, p.samples, shared_object, options);
  p.hot_instructions.why =
      fmt::format("{} holds {:.0f}% of the kernel's samples",
                  top.line ? fmt::format("line {}", top.line) : "code outside the kernel's source",
                  100 * share);
}

std::pair<double, double> share_interval(long hits, long total) {
  if (total <= 0) return {0, 0};
  const double z = 1.96, n = static_cast<double>(total),
               p = std::clamp(static_cast<double>(hits) / n, 0.0, 1.0);
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

void fill_roofline(Profile& p, const core::ResolvedTask& task, double seconds,
                   const MachineProfile& m, int threads) {
  if (seconds <= 0) return;
  p.gflops = task.flops / seconds / 1e9;
  p.gbps = task.bytes / seconds / 1e9;
  p.roofline = roofline_fraction(task.flops, task.bytes, seconds, m, threads);
  p.arithmetic_intensity = task.bytes > 0 ? task.flops / task.bytes : 0;
  p.machine_balance = m.peak_gbps(threads) > 0 ? m.peak_gflops(threads) / m.peak_gbps(threads) : 0;
  p.bound = p.arithmetic_intensity >= p.machine_balance ? "compute" : "memory";
  const double footprint = static_cast<double>(task.input_bytes() + task.output_bytes());
  p.roofline_note =
      roofline_note(p.roofline, {"the kernel", threads, p.gflops, p.gbps, footprint}, m);
}

std::string Profile::summary() const {
  std::string s =
      fmt::format("roofline: {:.1f}%{} ({}); {:.2f} GFLOP/s, {:.2f} GB/s\n", 100 * roofline,
                  roofline_note.empty() ? "" : " — " + roofline_note, bound_text(), gflops, gbps);
  // A GPU kernel has no host samples: its compiler's resource figures take their place.
  if (!gpu_kernels.empty())
    return s + "kernels (ptxas):\n" + toolchain::format_resources(gpu_kernels);
  return s + samples_text();
}

std::string Profile::bound_text() const {
  return fmt::format(
      "{}-bound by the cost model: {:.2f} FLOP/byte against a machine balance of {:.2f}", bound,
      arithmetic_intensity, machine_balance);
}

std::string Profile::samples_text() const {
  std::string s = fmt::format("samples: {} over {} calls; time by code:", samples, calls);
  std::vector<std::pair<double, std::string>> shares;
  for (const auto& [name, share] : object_share) shares.emplace_back(share, name);
  std::sort(shares.rbegin(), shares.rend());
  for (const auto& [share, name] : shares) s += fmt::format(" {} {:.0f}%,", name, 100 * share);
  if (!shares.empty()) s.pop_back();
  // A share from ~100 samples is uncertain by several points: each line says how many samples it
  // got and the 95% interval of its share, so a reader does not chase noise.
  s += fmt::format("\nhot lines of the kernel (samples, share of all {} with its 95% interval):\n",
                   samples);
  int shown = 0;
  for (const auto& h : hot_lines) {
    if (++shown > 10) break;
    std::string src = h.source;
    src.erase(0, src.find_first_not_of(" \t"));
    auto [low, high] = share_interval(h.samples, samples);
    std::string where = h.line ? fmt::format("line {:>4}: {}", h.line, src) : h.function;
    s += fmt::format("  {:>5}  {:5.1f}% [{:.0f}–{:.0f}%]  {}\n", h.samples, 100 * h.share,
                     100 * low, 100 * high, where);
  }
  if (hot_lines.empty()) s += "  (no samples in the kernel's own code)\n";
  return s + hot_instructions.text();
}

nlohmann::json to_json(const Profile& p) {
  nlohmann::json gpu = p.gpu_kernels;
  nlohmann::json hot = nlohmann::json::array();
  for (const auto& h : p.hot_lines) {
    auto [low, high] = share_interval(h.samples, p.samples);
    hot.push_back({{"line", h.line},
                   {"samples", h.samples},
                   {"share", h.share},
                   {"share_ci", {low, high}},
                   {"function", h.function},
                   {"source", h.source}});
  }
  nlohmann::json vec = nlohmann::json::array();
  for (const auto& v : p.vectorization)
    vec.push_back({{"line", v.line},
                   {"vectorized", v.vectorized},
                   {"detail", v.detail},
                   {"intrinsics", v.intrinsics}});
  return {{"samples", p.samples},
          {"calls", p.calls},
          {"object_share", p.object_share},
          {"hot_lines", hot},
          {"hot_instructions",
           p.hot_instructions.empty() ? nlohmann::json(nullptr) : to_json(p.hot_instructions)},
          {"vectorization", vec},
          {"gflops", p.gflops},
          {"gbps", p.gbps},
          {"roofline", p.roofline},
          {"arithmetic_intensity", p.arithmetic_intensity},
          {"machine_balance", p.machine_balance},
          {"bound", p.bound},
          {"roofline_note", p.roofline_note},
          {"gpu_kernels", gpu},
          {"summary", p.summary()}};
}

}  // namespace kforge::eval
