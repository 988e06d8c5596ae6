#pragma once
// What a task computes: the parsed task.toml (sizes, params, tensors, tolerances, cost).
// How it is computed lives in kernels; nothing here knows about compilers or agents.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kforge/core/dtype.h"
#include "kforge/core/expr.h"

namespace kforge::core {

enum class Dist { normal, uniform, randint, constant, arange, custom };

// How an input is filled. The meaning of a and b depends on the distribution:
// normal (mean, std), uniform (low, high), randint (low, high exclusive), constant (value, -),
// arange (start, step), custom (filled by the task's generate.cpp).
struct InitSpec {
  Dist dist = Dist::normal;
  double a = 0.0;
  double b = 1.0;
  // A parameter may be an expression over the sizes ("V" for randint's high): resolved per size.
  std::string a_expr, b_expr;
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> shape;  // expressions over the size symbols
  InitSpec init;                   // inputs only
  // Inputs only: whether timing perturbs this input between pairs (defeats caching). Integer
  // inputs and structured float inputs (masks, tables) are left alone.
  bool mutate = true;
};

using ParamValue = std::variant<std::int64_t, double, bool>;

struct Param {
  std::string name;
  ParamValue value;
};

struct SizePreset {
  std::string name;
  Symbols symbols;
  std::vector<std::string> order;  // symbol names as declared, for display and the header
};

struct TaskSpec {
  std::filesystem::path dir;  // the task folder
  std::string id;
  std::string title;
  std::string origin;
  std::string notes;
  std::vector<std::string> tags;
  std::string default_size;
  std::vector<SizePreset> sizes;  // in declaration order
  std::vector<Param> params;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  double rtol = 1e-4;  // [check]
  double atol = 1e-5;
  // [check.<size>] overrides for one size (a long sum at the full size may need more room).
  std::map<std::string, std::pair<double, double>, std::less<>>
      size_tolerance;      // size → (rtol, atol)
  std::string cost_flops;  // expression; empty if not given
  std::string cost_bytes;
  // [guard_probe.<size>]: for a size too large for the suite test to run, the symbols to shrink
  // (the rest kept) so that the reference still sees the inputs' distribution at that size; the
  // test runs it there to see every guard fire (docs/porting.md, "Guards").
  std::map<std::string, Symbols, std::less<>> guard_probe;

  std::filesystem::path reference_path() const { return dir / "reference.cpp"; }
  std::filesystem::path baseline_path() const { return dir / "baseline.cpp"; }
  std::filesystem::path expert_path() const { return dir / "expert.cpp"; }
  std::filesystem::path generate_path() const { return dir / "generate.cpp"; }
  bool has_generator() const;
  const SizePreset* find_size(std::string_view name) const;
};

// The task with one more size preset, "<size>-probe": `size` with its [guard_probe.<size>]
// symbols in place, and the same tolerance. Null when the task declares no probe for `size`.
std::unique_ptr<TaskSpec> with_guard_probe(const TaskSpec& spec, std::string_view size);
std::string guard_probe_size_name(std::string_view size);

// Task ids name folders and files: [A-Za-z0-9_][A-Za-z0-9_.-]*, without "..".
bool is_safe_task_id(std::string_view id);

}  // namespace kforge::core
