#pragma once
// The generated per-(task, size) header every implementation includes: shapes and params as
// compile-time constants, and the declaration of the kernel ABI, so a kernel whose signature
// does not match fails to compile with a clear message.

#include <string>

#include "kforge/core/task_resolve.h"

namespace kforge::core {

// extern "C" void kernel(const float* x, const float* scale, float* y)
std::string kernel_signature(const ResolvedTask& task);
// extern "C" void generate(std::uint64_t seed, float* x, ...) — only for tasks with custom inputs.
std::string generator_signature(const ResolvedTask& task);
// The full text of kforge_task.h.
std::string task_header(const ResolvedTask& task);

}  // namespace kforge::core
