// Device facts from the driver; peaks from kforge-gpu-peak, compiled once per toolkit and device
// into the per-user cache and run as a plain trusted process.
#include "kforge/eval/gpu_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/paths.h"
#include "kforge/core/subprocess.h"
#include "kforge/eval/gpu_peak_bounds.h"

namespace kforge::eval {
namespace {

std::string file_key(const std::string& name) {
  std::string k;
  for (char c : name) k += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return k;
}

Result<std::filesystem::path> build_peak_program(const GpuProfileOptions& o,
                                                 const runner::CudaDeviceInfo& d) {
  const auto source = core::source_dir() / "src" / "kforge" / "eval" / "gpu" / "gpu_peak.cu";
  auto text = core::read_text(source);
  if (!text) return with_context(text.error(), "the GPU peak program");
  core::Hasher h;
  h.add(*text).add(d.arch()).add(o.cuda_home.string());
  auto dir = o.cache_dir / "gpu-peak" / h.hex().substr(0, 16);
  auto exe = dir / "kforge-gpu-peak";
  if (std::filesystem::exists(exe)) return exe;
  std::filesystem::create_directories(dir);
  auto r = core::run_process({(o.cuda_home / "bin" / "nvcc").string(), "-std=c++17", "-O3",
                              "-arch=" + d.arch(), source.string(), "-o", exe.string()},
                             {.timeout = std::chrono::seconds(300)});
  if (!r.success())
    return Error{fmt::format("nvcc could not build the GPU peak program ({}): {}", r.describe(),
                             r.err.substr(0, 2000))};
  return exe;
}

}  // namespace

GpuPeaks parse_gpu_peaks(const nlohmann::json& j) {
  GpuPeaks p{j.value("fp32_fma_gflops", 0.0),
             j.value("tensor_f16_gflops", 0.0),
             j.value("tensor_tf32_gflops", 0.0),
             j.value("hbm_gbps", 0.0),
             {}};
  if (auto it = j.find("not_measured"); it != j.end() && it->is_object())
    for (const auto& [name, why] : it->items())
      if (why.is_string()) p.not_measured[name] = why.get<std::string>();
  return p;
}

Result<GpuProfile> gpu_profile(const GpuProfileOptions& o) {
  auto devices = runner::cuda_devices();
  if (!devices) return devices.error();
  GpuProfile p;
  p.device = devices->front();
  const auto record = o.cache_dir / "peaks" / ("gpu-" + file_key(p.device.name) + ".json");
  if (!o.remeasure)
    if (auto text = core::read_text(record)) try {
        p.peaks = parse_gpu_peaks(nlohmann::json::parse(*text));
        // Held to the part's bound again: a record kept before the bound existed may hold an
        // unreachable figure.
        refuse_unreachable_peaks(p.peaks, p.device);
        if (p.peaks.fp32_fma_gflops > 0) return p;
      } catch (const std::exception&) {
        // a damaged record is measured again
      }
  auto exe = build_peak_program(o, p.device);
  if (!exe) return exe.error();
  auto r = core::run_process({exe->string()}, {.timeout = std::chrono::seconds(180)});
  if (!r.success())
    return Error{fmt::format("the GPU peak program failed ({}): {}{}", r.describe(), r.out,
                             r.err.substr(0, 2000))};
  try {
    auto j = nlohmann::json::parse(r.out);
    if (!j.value("error", std::string{}).empty())
      return Error{"the GPU peak program: " + j.value("error", std::string{})};
    p.peaks = parse_gpu_peaks(j);
    refuse_unreachable_peaks(p.peaks, p.device);
  } catch (const std::exception& e) {
    return Error{fmt::format("the GPU peak program printed no JSON ({}): {}", e.what(), r.out)};
  }
  p.measured_now = true;
  std::filesystem::create_directories(record.parent_path());
  nlohmann::json j = p;
  (void)core::write_atomic(record, j.dump(2));  // a cache: failing to keep it costs a re-measure
  return p;
}

double gpu_roofline_fraction(double flops, double bytes, double seconds, const GpuPeaks& peaks) {
  if (seconds <= 0 || flops <= 0 || peaks.fp32_fma_gflops <= 0) return 0;
  double attainable = peaks.fp32_fma_gflops * 1e9;
  if (bytes > 0 && peaks.hbm_gbps > 0)
    attainable = std::min(attainable, flops / bytes * peaks.hbm_gbps * 1e9);
  return flops / seconds / attainable;
}

void to_json(nlohmann::json& j, const GpuProfile& p) {
  j = {{"name", p.device.name},
       {"arch", p.device.arch()},
       {"sms", p.device.sms},
       {"memory_bytes", p.device.memory_bytes},
       {"l2_bytes", p.device.l2_bytes},
       {"driver_version", p.device.driver_version},
       {"fp32_fma_gflops", p.peaks.fp32_fma_gflops},
       {"tensor_f16_gflops", p.peaks.tensor_f16_gflops},
       {"tensor_tf32_gflops", p.peaks.tensor_tf32_gflops},
       {"hbm_gbps", p.peaks.hbm_gbps},
       {"ridge_fp32_flop_per_byte", p.peaks.ridge_fp32()}};
  if (!p.peaks.not_measured.empty()) j["not_measured"] = p.peaks.not_measured;
}

}  // namespace kforge::eval
