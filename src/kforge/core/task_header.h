#pragma once
// The generated per-(task, size) header every implementation includes: shapes and params as
// compile-time constants, and the declaration of the kernel ABI, so a kernel whose signature
// does not match fails to compile with a clear message.

#include <string>
#include <vector>

#include "kforge/core/task_resolve.h"

namespace kforge::core {

// What a target adds to the C ABI every target shares (inputs in order, then outputs): headers
// the kernel file needs before the declaration, trailing parameters (the CUDA stream), and the
// sentence saying where the buffers live. Empty: the cpu target's host ABI.
struct KernelAbi {
  std::vector<std::string> includes;  // "<cuda_runtime.h>"
  std::string extra_params;           // "cudaStream_t stream"
  std::string buffer_note =
      "Buffers are dense, row-major and 64-byte aligned; inputs are read-only.";
};

// extern "C" void kernel(const float* x, const float* scale, float* y)
std::string kernel_signature(const ResolvedTask& task, const KernelAbi& abi = {});
// extern "C" void generate(std::uint64_t seed, float* x, ...) — only for tasks with custom inputs.
std::string generator_signature(const ResolvedTask& task);
// The full text of kforge_task.h.
std::string task_header(const ResolvedTask& task, const KernelAbi& abi = {});

}  // namespace kforge::core
