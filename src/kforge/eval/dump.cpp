// DIR/manifest.json and DIR/set<k>/{inputs,outputs,expected}/<name>.npy.
#include "kforge/eval/dump.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/npy.h"

namespace kforge::eval {

Status dump_check_sets(const std::filesystem::path& dir, const core::ResolvedTask& task,
                       const std::vector<SharedSet>& inputs,
                       const std::vector<OutputSnapshot>& results,
                       const std::vector<SharedSet>& references) {
  nlohmann::json manifest = {{"task", task.spec->id},
                             {"size", task.size},
                             {"rtol", task.rtol},
                             {"atol", task.atol},
                             {"sets", inputs.size()},
                             {"inputs", nlohmann::json::array()},
                             {"outputs", nlohmann::json::array()}};
  for (const auto& t : task.inputs)
    manifest["inputs"].push_back(
        {{"name", t.name}, {"dtype", core::dtype_name(t.dtype)}, {"shape", t.shape}});
  for (const auto& t : task.outputs)
    manifest["outputs"].push_back(
        {{"name", t.name}, {"dtype", core::dtype_name(t.dtype)}, {"shape", t.shape}});
  if (auto st = core::write_atomic(dir / "manifest.json", manifest.dump(2)); !st) return st;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    auto set = dir / fmt::format("set{}", k + 1);
    for (std::size_t i = 0; i < task.inputs.size(); ++i) {
      const auto& t = task.inputs[i];
      if (auto st = core::write_npy(set / "inputs" / (t.name + ".npy"), t.dtype, t.shape,
                                    inputs[k].tensor(i));
          !st)
        return st;
    }
    for (std::size_t i = 0; i < task.outputs.size(); ++i) {
      const auto& t = task.outputs[i];
      if (auto st = core::write_npy(set / "outputs" / (t.name + ".npy"), t.dtype, t.shape,
                                    results[k][i].data());
          !st)
        return st;
      if (auto st = core::write_npy(set / "expected" / (t.name + ".npy"), t.dtype, t.shape,
                                    references[k].tensor(i));
          !st)
        return st;
    }
  }
  return ok_status();
}

}  // namespace kforge::eval
