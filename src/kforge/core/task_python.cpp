// Writes kforge_task.py. Float params keep their double value (Python floats are doubles; JAX and
// PyTorch narrow them to the f32 of the arrays they meet, as kforge_task.h's float constants do).
#include "kforge/core/task_python.h"

#include <fmt/format.h>

#include <set>

namespace kforge::core {
namespace {

// A name C++ accepts but Python reserves gets PEP 8's trailing underscore (lambda → lambda_).
std::string python_name(const std::string& name) {
  static const std::set<std::string> keywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return keywords.count(name) ? name + "_" : name;
}

// The shortest Python float literal that reads back as the same double ("2" would be an int).
std::string float_literal(double d) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  if (s == "inf") return "float('inf')";
  if (s == "-inf") return "float('-inf')";
  if (s == "nan" || s == "-nan") return "float('nan')";
  return s;
}

std::string param_line(const Param& p) {
  if (auto* i = std::get_if<std::int64_t>(&p.value))
    return fmt::format("{} = {}\n", python_name(p.name), *i);
  if (auto* b = std::get_if<bool>(&p.value))
    return fmt::format("{} = {}\n", python_name(p.name), *b ? "True" : "False");
  return fmt::format("{} = {}\n", python_name(p.name), float_literal(std::get<double>(p.value)));
}

// ("x", "f32", (2, 8, 256)); a one-element shape needs its trailing comma to stay a tuple.
std::string tensor_entry(const ResolvedTensor& t) {
  std::string dims;
  for (auto d : t.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  if (t.shape.size() == 1) dims += ",";
  return fmt::format("    (\"{}\", \"{}\", ({})),\n", t.name, dtype_name(t.dtype), dims);
}

}  // namespace

std::string task_python_module(const ResolvedTask& task, const std::string& dtype) {
  const TaskSpec& spec = *task.spec;
  std::string m;
  m += fmt::format("# kforge_task.py: generated for task {} at size '{}'. Do not edit.\n", spec.id,
                   task.size);
  m += "# Shapes and params of this size; INPUTS and OUTPUTS as (name, dtype, shape) in ABI "
       "order.\n";
  m += fmt::format("TASK = \"{}\"\nSIZE = \"{}\"\n", spec.id, task.size);
  const SizePreset* preset = spec.find_size(task.size);
  for (const auto& sym : preset->order)
    m += fmt::format("{} = {}\n", python_name(sym),
                     static_cast<std::int64_t>(preset->symbols.at(sym)));
  for (const auto& p : spec.params) m += param_line(p);
  m += "INPUTS = (\n";
  for (const auto& t : task.inputs) m += tensor_entry(t);
  m += ")\nOUTPUTS = (\n";
  for (const auto& t : task.outputs) m += tensor_entry(t);
  m += fmt::format(")\nRTOL = {}\nATOL = {}\n", float_literal(task.rtol), float_literal(task.atol));
  if (dtype != "f32")
    m += fmt::format(
        "# The f32 tensors of INPUTS and OUTPUTS arrive (and must be returned) as {} arrays.\n",
        dtype == "bf16" ? "jax.numpy.bfloat16" : dtype);
  m += fmt::format("DTYPE = \"{}\"\n", dtype);
  return m;
}

}  // namespace kforge::core
