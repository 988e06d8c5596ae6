#pragma once
// One task at one size, with what evaluating anything against it needs: the generated header,
// the compiled trusted artifacts (reference, baseline, generator), secret input sets and their
// cached reference outputs.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/core/task_resolve.h"
#include "kforge/core/task_spec.h"
#include "kforge/eval/shared_set.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::eval {

class TaskContext {
 public:
  // Loads nothing itself; keeps its own copy of `spec` (a context may outlive the caller's).
  static Result<TaskContext> create(const core::TaskSpec& spec, const std::string& size,
                                    toolchain::Compiler& compiler, std::filesystem::path state_dir);

  const core::TaskSpec& spec() const { return spec_; }
  const core::ResolvedTask& task() const { return task_; }
  const std::string& header() const { return header_; }
  toolchain::Compiler& compiler() const { return *compiler_; }
  const std::filesystem::path& state_dir() const { return state_dir_; }

  // Compiles one of the task's own sources (cached); errors carry the diagnostics.
  Result<toolchain::CompileResult> build(toolchain::Role role,
                                         const std::filesystem::path& source) const;
  Result<std::filesystem::path> reference_library() const;
  Result<std::filesystem::path> baseline_library() const;
  // Whether baseline_library() will be served from the compile cache (else it builds libtorch
  // code: about a minute the first time); false when the compiler cannot tell.
  bool baseline_cached() const;
  Result<std::filesystem::path> generator_library() const;  // "" when the task has no generate.cpp

  // Inputs from `seed` (standard distributions, then generate.cpp), sealed read-only.
  Result<SharedSet> make_inputs(std::uint64_t seed) const;
  // The same, but kforge keeps its writable mapping (to perturb them between timed calls) while
  // every other mapping can only be read-only.
  Result<SharedSet> make_timing_inputs(std::uint64_t seed) const;
  // Reference outputs for those inputs: from the cache, or computed by the reference in a child.
  Result<SharedSet> reference_outputs(const SharedSet& inputs, std::uint64_t seed) const;

 private:
  TaskContext() = default;
  Result<std::string> reference_key(std::uint64_t seed) const;
  Result<SharedSet> generate_inputs(std::uint64_t seed) const;
  core::TaskSpec spec_;
  core::ResolvedTask task_;
  std::string header_;
  toolchain::Compiler* compiler_ = nullptr;
  std::filesystem::path state_dir_;
};

}  // namespace kforge::eval
