// Writes kforge_task.h; its bytes are part of every artifact's cache key.
#include "kforge/core/task_header.h"

#include <fmt/format.h>

namespace kforge::core {
namespace {

// A float literal C++ accepts for any value: "2" needs a point before its suffix ("2.0f").
std::string float_literal(double d) {
  std::string s = fmt::format("{:.9g}", static_cast<float>(d));
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s + "f";
}

std::string param_line(const Param& p) {
  if (auto* i = std::get_if<std::int64_t>(&p.value))
    return fmt::format("inline constexpr std::int64_t {} = {};\n", p.name, *i);
  if (auto* b = std::get_if<bool>(&p.value))
    return fmt::format("inline constexpr bool {} = {};\n", p.name, *b ? "true" : "false");
  return fmt::format("inline constexpr float {} = {};\n", p.name,
                     float_literal(std::get<double>(p.value)));
}

std::string shape_list(const ResolvedTensor& t) {
  std::string s;
  for (auto d : t.shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}

std::string arguments(const ResolvedTask& task, bool mutable_inputs,
                      const std::string& extra_params = {}) {
  std::string args;
  for (const auto& t : task.inputs)
    args += fmt::format("{}{}{}* {}", args.empty() ? "" : ", ", mutable_inputs ? "" : "const ",
                        dtype_c_type(t.dtype), t.name);
  if (mutable_inputs) return args;
  for (const auto& t : task.outputs) args += fmt::format(", {}* {}", dtype_c_type(t.dtype), t.name);
  if (!extra_params.empty()) args += ", " + extra_params;
  return args;
}

}  // namespace

std::string kernel_signature(const ResolvedTask& task, const KernelAbi& abi) {
  return fmt::format("extern \"C\" void kernel({})", arguments(task, false, abi.extra_params));
}

std::string generator_signature(const ResolvedTask& task) {
  return fmt::format("extern \"C\" void generate(std::uint64_t seed, {})", arguments(task, true));
}

std::string task_header(const ResolvedTask& task, const KernelAbi& abi) {
  const TaskSpec& spec = *task.spec;
  std::string h;
  h += fmt::format("// kforge_task.h: generated for task {} at size '{}'. Do not edit.\n", spec.id,
                   task.size);
  h += "#pragma once\n#include <cstddef>\n#include <cstdint>\n";
  for (const auto& inc : abi.includes) h += fmt::format("#include {}\n", inc);
  h += "\nnamespace task {\n";
  const SizePreset* preset = spec.find_size(task.size);
  for (const auto& sym : preset->order)
    h += fmt::format("inline constexpr std::int64_t {} = {};\n", sym,
                     static_cast<std::int64_t>(preset->symbols.at(sym)));
  for (const auto& p : spec.params) h += param_line(p);
  h += "namespace f64 {  // the float params at double precision, for references\n";
  for (const auto& p : spec.params)
    if (auto* d = std::get_if<double>(&p.value))
      h += fmt::format("inline constexpr double {} = {:.17g};\n", p.name, *d);
  h += "}  // namespace f64\n";
  for (const auto& t : task.inputs)
    h += fmt::format("inline constexpr std::int64_t {}_numel = {};  // {} [{}]\n", t.name, t.numel,
                     dtype_name(t.dtype), shape_list(t));
  for (const auto& t : task.outputs)
    h += fmt::format("inline constexpr std::int64_t {}_numel = {};  // {} [{}]\n", t.name, t.numel,
                     dtype_name(t.dtype), shape_list(t));
  h += "}  // namespace task\n\n";
  h += fmt::format("// {}\n", abi.buffer_note);
  h += fmt::format("extern \"C\" __attribute__((visibility(\"default\"))) void kernel({});\n",
                   arguments(task, false, abi.extra_params));
  if (spec.has_generator())
    h += fmt::format(
        "extern \"C\" __attribute__((visibility(\"default\"))) void generate(std::uint64_t seed, "
        "{});\n",
        arguments(task, true));
  return h;
}

}  // namespace kforge::core
