#pragma once
// A target: what a kernel is written in and what it runs on. One small interface, so the CLI,
// the agents and the modes never ask which target they serve, and a new one (pallas) is a new
// implementation of this class plus a line in targets.cpp:
//   - the kernel file and its ABI (the generated kforge_task.h and the signature `show` prints),
//   - the toolchain that turns the file into an artifact (toolchain::Compiler),
//   - the task's own trusted sources for it (expert, baseline),
//   - the judge that checks and times it (compile → link check → run → check → time), and
//     whether this machine can run it at all,
//   - the agents' material: prompt folder, playbook folder, search strategies,
//   - and what the modes and commands would otherwise ask its name: whether the host's roofline
//     bounds its kernels, what its baseline is called, whether its times are performance, whether
//     its kernels can be tuned, which partners and peers pair them.
// bound_target.h binds one to a command's compiler, dtype and device: the door modes enter by.

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/core/task_header.h"
#include "kforge/core/task_resolve.h"
#include "kforge/core/task_spec.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/eval/task_context.h"
#include "kforge/toolchain/compiler.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::target {

// What the user configured for toolchains (settings.cpp reads it; a target takes what it needs).
struct ToolchainSettings {
  std::filesystem::path cache_dir;    // the per-user artifact cache
  std::filesystem::path include_dir;  // bench/include
  std::string cxx;                    // KFORGE_CXX
  std::vector<std::filesystem::path> toolchain_dirs;
  std::filesystem::path cuda_home = "/usr/local/cuda";  // KFORGE_CUDA_HOME
  std::string cuda_arch;  // KFORGE_CUDA_ARCH; empty: the device's, else sm_90
  // Ctrl-C (the CLI's interrupt flag): compiles in flight are killed and not cached. Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

// Where the agents' text for a target lives (under the source tree): a prompt template is looked
// up in prompt_dir first, then in prompts/; the playbook and strategies are the target's own.
struct AgentMaterial {
  std::string language;  // "C++20 with OpenMP and AVX2 intrinsics", "CUDA C++ (nvcc, sm_90)"
  std::filesystem::path prompt_dir;
  std::filesystem::path playbook_dir;
  std::filesystem::path strategies_file;
  std::string code_fence = "cpp";  // the code-block language kernels are shown and asked for in
  bool gpu = false;  // kernels run on a GPU: the agents are told about the device, not the CPU
};

class Target {
 public:
  virtual ~Target() = default;

  virtual std::string_view name() const = 0;  // what --target takes: "cpp", "cuda"
  virtual std::string_view summary() const = 0;

  // The kernel file: "kernel" + this extension (".cpp", ".cu").
  virtual std::string kernel_extension() const = 0;
  std::string kernel_file_name() const { return "kernel" + kernel_extension(); }
  // What the target adds to the shared C ABI (includes, a stream parameter, where buffers live).
  virtual core::KernelAbi abi() const = 0;
  // The kernel's declaration, and the generated file it includes or imports (kforge_task.h; the
  // pallas target's kforge_task.py). A C-ABI target needs only abi(); pallas overrides both.
  virtual std::string kernel_signature(const core::ResolvedTask& task) const {
    return core::kernel_signature(task, abi());
  }
  virtual std::string task_header(const core::ResolvedTask& task) const {
    return core::task_header(task, abi());
  }
  // How `kforge show` presents the signature: the include (or import) and the declaration.
  virtual std::string signature_block(const core::ResolvedTask& task) const {
    return "#include \"kforge_task.h\"\n" + kernel_signature(task) + ";";
  }

  // The task's trusted sources in this target; a path that does not exist means "none".
  virtual std::filesystem::path expert_path(const core::TaskSpec& spec) const = 0;
  virtual std::filesystem::path baseline_path(const core::TaskSpec& spec) const = 0;

  // The compiler for kernels of this target. The reference, the generator and the task context
  // stay on the host (cpp) compiler whatever the target: they are the oracle, not the kernel.
  virtual std::unique_ptr<toolchain::Compiler> make_compiler(
      const ToolchainSettings& settings) const = 0;
  // What an artifact of `role` may link.
  virtual toolchain::LinkPolicy link_policy(const toolchain::Compiler& compiler,
                                            toolchain::Role role) const = 0;

  // Empty when kernels of this target can run on this machine; else the reason, starting with
  // what is missing ("no CUDA device: ...").
  virtual std::string unavailable_reason() const = 0;

  // The judge for this target. `host` is the task on the host compiler (inputs, secret seeds,
  // reference outputs); `compiler` came from make_compiler. A failing kernel is a verdict.
  virtual eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                    const std::string& source, const std::string& file_name,
                                    const eval::EvalOptions& options) const = 0;

  // Why `source` does not build: the compiler's errors, or the link check's refusal; "" when it
  // builds. The default compiles against task_header() and checks the link against link_policy().
  virtual std::string build_failure(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                    const std::string& source, const std::string& file_name,
                                    const eval::EvalOptions& options) const;

  virtual AgentMaterial agent_material() const = 0;
  // The architecture `compiler` builds kernels for ("sm_90"); "" for the host CPU's.
  virtual std::string arch(const toolchain::Compiler&) const { return {}; }
  // The device kernels run on and its measured peaks (a GPU target's); an error saying why there
  // is none, for a target whose kernels run on the host.
  virtual Result<eval::GpuProfile> measure_device(const toolchain::Compiler& compiler) const;

  // --- What the modes and commands ask instead of the target's name ---
  // The host CPU's roofline bounds this target's kernels: a percentage of it is quoted.
  virtual bool roofline_applies() const { return false; }
  // The baseline can be timed alone before any kernel exists (cpp: baseline.cpp under
  // kforge-run's protocol); another target's is timed beside each kernel by its judge.
  virtual bool baseline_timed_alone() const { return false; }
  // The peers (torch, torch.compile, XLA under kforge-run's protocol) pair this target's kernels:
  // --report-peers, bench --peers, and --beat fastest reading bench --peers' table.
  virtual bool peers_apply() const { return false; }
  // Whether --partner `partner` may pair this target's kernels (the task's baseline always may).
  virtual bool accepts_partner(std::string_view partner) const {
    return partner == "baseline" || partner == "libtorch";
  }
  // Whether its kernels may compute in --dtype `dtype` (a known dtype name).
  virtual bool accepts_dtype(std::string_view dtype) const { return dtype == "f32"; }
  // What the agents, reports and tables call the partner `options` pair kernels with.
  virtual std::string baseline_name(const eval::EvalOptions& options) const;
  // Whether an evaluation's times are the kernel's performance (not interpret-mode ones, where the
  // best is the first correct kernel and no speedup is quoted).
  virtual bool times_are_performance(const eval::Evaluation& e) const {
    return e.timing_is_performance();
  }
  // "" when the tuner can rebuild its kernels with -D values of their tunables; else why not.
  virtual std::string untunable_reason() const { return {}; }
  // Whether the task's baseline file is a kernel of this target (bench --impl baseline times it).
  virtual bool baseline_is_kernel() const { return true; }
  // What a bench run's header line adds for this target ("" for most).
  virtual std::string run_header(const std::string& /*dtype*/) const { return {}; }

 protected:
  // "the kernel does not compile:" and the first diagnostics (or the log); "" when it compiled.
  static std::string compile_failure(const toolchain::CompileResult& result);
};

// The targets kforge knows, by name; nullptr for an unknown name.
const Target* find_target(std::string_view name);
std::vector<std::string> target_names();
const Target& default_target();  // cpp
// The host compiler every target's task context uses (references, generators, baselines, cpu
// kernels): the one thing of the cpp target every caller needs, whatever it serves.
std::unique_ptr<toolchain::CppCompiler> make_cpp_compiler(const ToolchainSettings& settings);

// A target added while this object lives (a test's own; kforge's are the rows of targets.cpp):
// find_target and target_names know it like the others.
class TargetRegistration {
 public:
  explicit TargetRegistration(const Target& target);
  ~TargetRegistration();
  TargetRegistration(const TargetRegistration&) = delete;
  TargetRegistration& operator=(const TargetRegistration&) = delete;

 private:
  const Target* target_;
};

}  // namespace kforge::target
