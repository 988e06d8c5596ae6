// The cuda target: one .cu file whose extern "C" host entry takes device pointers and the stream
// to launch on; nvcc to a shared object linked against the CUDA runtime only (experts and
// baselines may add cuBLAS, cuBLASLt, cuDNN); judged by eval::evaluate_gpu on a CUDA device,
// with the host task (the same secret inputs and reference outputs as the cpu target).
#include "kforge/targets/cuda_target.h"

#include <fmt/format.h>

#include <unistd.h>

#include <optional>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/torch_install.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/eval/ncu_report.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/runner/cuda_driver.h"
#include "kforge/targets/cuda_process_device.h"
#include "kforge/targets/evaluate_gpu.h"
#include "kforge/toolchain/cuda_compiler.h"

namespace kforge::target {

std::string cuda_arch(const std::string& configured) {
  if (!configured.empty()) return configured;
  auto devices = runner::cuda_devices();
  return devices && !devices->empty() ? devices->front().arch() : "sm_90";
}

core::KernelAbi CudaTarget::abi() const {
  return {{"<cuda_runtime.h>"},
          "cudaStream_t stream",
          "Buffers are device pointers (cudaMalloc'd: 256-byte aligned), dense and row-major; "
          "inputs are read-only.\n// Launch every kernel on `stream`; kforge synchronizes the "
          "whole device after the call."};
}

std::filesystem::path CudaTarget::expert_path(const core::TaskSpec& spec) const {
  return spec.dir / "expert.cu";
}

std::filesystem::path CudaTarget::baseline_path(const core::TaskSpec& spec) const {
  return spec.dir / "baseline.cu";
}

std::optional<core::TorchInstall> wheel_torch_with_cuda() {
  auto torch = core::wheel_torch(core::python_env_dir());
  if (!torch || !torch->cuda) return std::nullopt;
  return torch;
}

std::unique_ptr<toolchain::Compiler> CudaTarget::make_compiler(const ToolchainSettings& s) const {
  toolchain::CudaCompilerOptions o;
  o.torch = wheel_torch_with_cuda();
  if (!s.cxx.empty()) o.host_cxx = s.cxx;
  o.cuda_home = s.cuda_home;
  o.arch = cuda_arch(s.cuda_arch);
  o.cache_dir = s.cache_dir;
  o.include_dir = s.include_dir;
  o.cancel = s.cancel;
  return std::make_unique<toolchain::CudaCompiler>(o);
}

toolchain::LinkPolicy CudaTarget::link_policy(const toolchain::Compiler& compiler,
                                              toolchain::Role role) const {
  if (auto* cuda = dynamic_cast<const toolchain::CudaCompiler*>(&compiler))
    return cuda->link_policy(role);
  return toolchain::LinkPolicy{{"cudart"}, {}};
}

bool CudaTarget::accepts_partner(std::string_view partner) const {
  return Target::accepts_partner(partner) || eval::is_peer(std::string(partner));
}

std::string CudaTarget::unavailable_reason() const {
  auto devices = runner::cuda_devices();
  return devices ? std::string{} : devices.error().message;
}

eval::Evaluation CudaTarget::evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                      const std::string& source, const std::string& file_name,
                                      const eval::EvalOptions& options) const {
  eval::GpuEvalSetup setup;
  std::filesystem::path peer_scratch;  // a peer's kforge_task.py and HOME, removed at the end
  setup.compiler = &compiler;
  setup.header = task_header(host.task());
  setup.link_policy = [this, &compiler](toolchain::Role role) {
    return link_policy(compiler, role);
  };
  setup.device_missing = [this] { return unavailable_reason(); };
  setup.start_device = [&](const std::filesystem::path& artifact, bool trusted) {
    return eval::start_cuda_process_device({.library = artifact,
                                            .trusted = trusted,
                                            .state_dir = host.state_dir(),
                                            .memory_bytes = options.memory_bytes,
                                            .cancel = options.cancel});
  };
  // The check phase again under compute-sanitizer (out-of-bounds and misaligned accesses, then
  // shared-memory races) where the toolkit has it.
  auto* nvcc = dynamic_cast<const toolchain::CudaCompiler*>(&compiler);
  if (auto sanitizer = eval::find_compute_sanitizer(
          nvcc ? nvcc->cuda_home() : toolchain::CudaCompilerOptions{}.cuda_home);
      !sanitizer.empty()) {
    setup.sanitizer_tools = {"memcheck", "racecheck"};
    setup.start_sanitized = [&, sanitizer](const std::filesystem::path& artifact,
                                           const std::string& tool) {
      return eval::start_cuda_process_device({.library = artifact,
                                              .state_dir = host.state_dir(),
                                              .memory_bytes = 0,  // the sanitizer maps much
                                              .wrapper = eval::sanitizer_wrapper(sanitizer, tool),
                                              .cancel = options.cancel});
    };
  }
  // Hardware counters for a profile (eval --profile, the modes' profiler) where Nsight Compute is
  // installed: one check call of the candidate under ncu.
  if (auto ncu =
          eval::find_ncu(nvcc ? nvcc->cuda_home() : toolchain::CudaCompilerOptions{}.cuda_home);
      !ncu.empty() && options.profile_seconds > 0) {
    setup.start_counted = [&, ncu](const std::filesystem::path& artifact) {
      return eval::start_cuda_process_device({.library = artifact,
                                              .state_dir = host.state_dir(),
                                              .memory_bytes = 0,  // ncu maps much too
                                              .start_timeout_s = 300,
                                              .wrapper = eval::ncu_wrapper(ncu.string()),
                                              .cancel = options.cancel});
    };
  }
  // The partner: --against, or the task's CUDA baseline (PyTorch eager on the device); without
  // either the kernel is timed alone and no speedup is claimed.
  if (!options.peer.empty()) {
    // A peer (PyTorch eager, torch.compile, XLA) on the same GPU: the task's Python port in a
    // device process of its own, speaking the runner's wire.
    setup.partner_name = options.peer;
    peer_scratch =
        host.state_dir() / "tmp" / fmt::format("gpu-peer-{}-{}", options.peer, ::getpid());
    setup.start_partner = [&]() {
      return eval::start_python_gpu_device(host.spec(), host.task(), options.peer, peer_scratch,
                                           false, options.cancel);
    };
  } else if (!options.against_source.empty()) {
    eval::partner_against(setup, options);
  } else if (options.partner == eval::EvalOptions::Partner::baseline &&
             std::filesystem::exists(baseline_path(host.spec()))) {
    setup.partner_name = "baseline";
    setup.partner_artifact = [&]() -> Result<std::filesystem::path> {
      auto text = core::read_text(baseline_path(host.spec()));
      if (!text) return text.error();
      toolchain::CompileRequest req{
          toolchain::Role::baseline, *text, "baseline.cu", setup.header, {}};
      auto c = compiler.compile(req);
      if (!c.ok)
        return Error{fmt::format("task {}: baseline.cu does not compile:\n{}", host.spec().id,
                                 c.log.substr(0, 2000))};
      return c.artifact;
    };
  }
  // The roofline against the device's measured peaks (measured once per device, then cached).
  std::optional<eval::GpuProfile> gpu;
  if (options.time && unavailable_reason().empty()) {
    auto p = eval::gpu_profile({.cache_dir = core::user_cache_dir(),
                                .cuda_home = nvcc ? nvcc->cuda_home() : "/usr/local/cuda"});
    if (p) gpu = std::move(*p);
    if (p) setup.peaks = &gpu->peaks;
  }
  auto e = eval::evaluate_gpu(host, setup, source, file_name, options);
  if (!peer_scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(peer_scratch, ec);
  }
  return e;
}

std::string CudaTarget::arch(const toolchain::Compiler& compiler) const {
  auto* nvcc = dynamic_cast<const toolchain::CudaCompiler*>(&compiler);
  return nvcc ? nvcc->arch() : cuda_arch("");
}

Result<eval::GpuProfile> CudaTarget::measure_device(const toolchain::Compiler& compiler) const {
  auto* nvcc = dynamic_cast<const toolchain::CudaCompiler*>(&compiler);
  return eval::gpu_profile(
      {.cache_dir = core::user_cache_dir(),
       .cuda_home = nvcc ? nvcc->cuda_home() : toolchain::CudaCompilerOptions{}.cuda_home});
}

AgentMaterial CudaTarget::agent_material() const {
  const auto root = core::source_dir();
  return {"CUDA C++ (nvcc 13, sm_90 by default: Hopper)",
          root / "prompts" / "cuda",
          root / "knowledge" / "cuda",
          root / "strategies" / "cuda.toml",
          "cuda",
          true};
}

}  // namespace kforge::target
