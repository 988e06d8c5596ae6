#pragma once
// A task at one size: every shape an integer, every byte count known, the cost evaluated.
// This is what the toolchain (kforge_task.h), the runner (buffers) and the roofline consume.

#include <cstdint>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/core/task_spec.h"

namespace kforge::core {

struct ResolvedTensor {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::int64_t numel = 1;
  std::size_t bytes = 0;
  InitSpec init;
  bool mutate = false;
};

struct ResolvedTask {
  const TaskSpec* spec = nullptr;  // the task it came from; must outlive this
  std::string size;                // preset name: "ci", "cpu", "full", ...
  Symbols symbols;                 // the size symbols, then numeric params
  std::vector<ResolvedTensor> inputs;
  std::vector<ResolvedTensor> outputs;
  double rtol = 0, atol = 0;  // the tolerance at this size
  double flops = 0;           // 0 when the task gives no formula
  double bytes = 0;

  std::size_t input_bytes() const;
  std::size_t output_bytes() const;
};

// Resolves `size` ("" means the task's default) to be run here: a size whose buffers exceed this
// machine's memory is refused before anything is mapped. Errors name the size and the field.
Result<ResolvedTask> resolve_task(const TaskSpec& spec, const std::string& size);

// The shapes, tolerance and cost at `size` on any machine: what the loader checks for every size.
Result<ResolvedTask> resolve_task_shapes(const TaskSpec& spec, const std::string& size);

// Refuses a task whose inputs and outputs (one set of each: the least an evaluation maps) do not
// fit in `machine_bytes`, saying how much was asked and how much there is.
Status check_fits_memory(const ResolvedTask& task, std::uint64_t machine_bytes);

// Physical memory of this machine, in bytes.
std::uint64_t physical_memory_bytes();

}  // namespace kforge::core
