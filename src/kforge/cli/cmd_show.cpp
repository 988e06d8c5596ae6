// kforge show TASK [--size S] [--json] [--header] [--python]: a task resolved for one size.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/task_python.h"
#include "kforge/core/task_resolve.h"

namespace kforge::cli {
namespace {

struct ShowOptions {
  std::string task;
  std::string size;
  bool json = false;
  bool header = false;
  bool python = false;
  std::string target;
  std::string dtype = "f32";
};

std::string init_text(const core::InitSpec& i) {
  switch (i.dist) {
    case core::Dist::normal:
      return fmt::format("normal(mean={:g}, std={:g})", i.a, i.b);
    case core::Dist::uniform:
      return fmt::format("uniform({:g}, {:g})", i.a, i.b);
    case core::Dist::randint:
      return fmt::format("randint({:g}, {:g})", i.a, i.b);
    case core::Dist::constant:
      return fmt::format("constant({:g})", i.a);
    case core::Dist::arange:
      return fmt::format("arange(start={:g}, step={:g})", i.a, i.b);
    case core::Dist::custom:
      return "custom (generate.cpp)";
  }
  return "?";
}

std::string param_text(const core::ParamValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return fmt::format("{:g}", std::get<double>(v));
}

nlohmann::json tensor_json(const core::ResolvedTensor& t, bool input) {
  nlohmann::json j = {{"name", t.name},
                      {"dtype", core::dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"bytes", t.bytes}};
  if (input) {
    j["init"] = init_text(t.init);
    j["mutate"] = t.mutate;
  }
  return j;
}

int run_show(const ShowOptions& o) {
  auto spec = load_task_arg(o.task);
  auto task = core::resolve_task(spec, o.size);
  if (!task) throw UsageError(task.error().message);
  const target::Target& target = target_arg(o.target);
  check_dtype_for_target(target, o.dtype);
  if (o.dtype != "f32") *task = core::at_dtype(*task, o.dtype);
  auto compiler = target.make_compiler(toolchain_settings());
  if (o.header) {
    fmt::print("{}", target.task_header(*task));
    return 0;
  }
  if (o.python) {
    fmt::print("{}", core::task_python_module(*task, o.dtype));
    return 0;
  }
  if (o.json) {
    nlohmann::json sizes = nlohmann::json::object(), params = nlohmann::json::object();
    for (const auto& [k, v] : spec.find_size(task->size)->symbols)
      sizes[k] = static_cast<std::int64_t>(v);
    for (const auto& p : spec.params) params[p.name] = nlohmann::json::parse(param_text(p.value));
    nlohmann::json in = nlohmann::json::array(), out = nlohmann::json::array();
    for (const auto& t : task->inputs) in.push_back(tensor_json(t, true));
    for (const auto& t : task->outputs) out.push_back(tensor_json(t, false));
    nlohmann::json j = {{"id", spec.id},
                        {"title", spec.title},
                        {"origin", spec.origin},
                        {"notes", spec.notes},
                        {"tags", spec.tags},
                        {"dir", spec.dir.string()},
                        {"size", task->size},
                        {"sizes", sizes},
                        {"params", params},
                        {"inputs", in},
                        {"outputs", out},
                        {"rtol", task->rtol},
                        {"atol", task->atol},
                        {"flops", task->flops},
                        {"bytes", task->bytes},
                        {"target", target.name()},
                        {"kernel_file", target.kernel_file_name()},
                        {"signature", target.kernel_signature(*task)},
                        {"flags", compiler->flags_for(toolchain::Role::candidate)}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  std::string sizes;
  const auto* preset = spec.find_size(task->size);
  for (const auto& k : preset->order)
    sizes += fmt::format("{}{}={}", sizes.empty() ? "" : " ", k, preset->symbols.at(k));
  std::string params;
  for (const auto& p : spec.params)
    params += fmt::format("{}{}={}", params.empty() ? "" : " ", p.name, param_text(p.value));
  std::vector<std::pair<std::string, std::string>> rows = {
      {"task", spec.id},
      {"title", spec.title},
      {"origin", spec.origin},
      {"size", fmt::format("{} ({})", task->size, sizes)}};
  if (!params.empty()) rows.push_back({"params", params});
  rows.push_back({"tolerance", fmt::format("|got − expected| ≤ {:g} + {:g}·|expected|", task->atol,
                                           task->rtol)});
  if (task->flops > 0 || task->bytes > 0)
    rows.push_back(
        {"cost",
         fmt::format(
             "{}FLOP, {}B  ({})", format_count(task->flops), format_count(task->bytes),
             task->bytes > 0 ? fmt::format("{:.2f} FLOP/byte", task->flops / task->bytes) : "")});
  if (!spec.notes.empty()) rows.push_back({"notes", spec.notes});
  fmt::print("{}\n", key_values(rows));
  Table tensors({"", "name", "dtype", "shape", "init"});
  for (const auto& t : task->inputs)
    tensors.add({"in", t.name, std::string(core::dtype_name(t.dtype)),
                 fmt::format("[{}]", fmt::join(t.shape, ", ")),
                 init_text(t.init) + (t.mutate ? "" : " (not perturbed in timing)")});
  for (const auto& t : task->outputs)
    tensors.add({"out", t.name, std::string(core::dtype_name(t.dtype)),
                 fmt::format("[{}]", fmt::join(t.shape, ", ")), ""});
  fmt::print("{}\n", tensors.render());
  std::string block = target.signature_block(*task);
  for (std::size_t at = block.find('\n'); at != std::string::npos; at = block.find('\n', at + 3))
    block.replace(at, 1, "\n  ");
  fmt::print("signature ({}, one {} file):\n  {}\n", target.name(), target.kernel_extension(),
             block);
  const auto flags = compiler->flags_for(toolchain::Role::candidate);
  if (flags.empty())  // pallas: no compiler flags; JAX traces and lowers the module itself
    fmt::print("checked by: {}\n", compiler->version());
  else
    fmt::print("compiled with: {}\n", fmt::join(flags, " "));
  return 0;
}

}  // namespace

void add_show(CommandLine& cmd) {
  auto o = std::make_shared<ShowOptions>();
  cmd.bind("task", o->task);
  cmd.require("task");
  cmd.bind("size", o->size);
  cmd.bind("json", o->json);
  cmd.bind("header", o->header);
  cmd.bind("python", o->python);
  cmd.bind("target", o->target);
  cmd.bind("dtype", o->dtype);
  cmd.on_run([o] { return run_show(*o); });
}

}  // namespace kforge::cli
