#pragma once
// The generated per-(task, size) Python module, kforge_task.py: the twin of kforge_task.h for
// Python implementations of a task (workload.py, baseline.py, Pallas kernels). Shapes and params
// are module constants, as static as JAX's shapes; INPUTS and OUTPUTS give the ABI order.

#include <string>

#include "kforge/core/task_resolve.h"

namespace kforge::core {

// The full text of kforge_task.py. `dtype` is what the f32 tensors arrive and leave as ("f32", or
// "bf16": jax.numpy.bfloat16 arrays), stated as DTYPE; RTOL and ATOL are the task's at that dtype.
std::string task_python_module(const ResolvedTask& task, const std::string& dtype = "f32");

}  // namespace kforge::core
