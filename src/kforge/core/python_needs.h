#pragma once
// What kforge needs of a Python environment it did not make (KFORGE_PYENV or --pyenv naming a
// user's venv with PyTorch and JAX, as on a GPU machine with a release): the packages its workers
// import, the oldest release of each it has been run with, and what a probed environment lacks.

#include <string>
#include <string_view>
#include <vector>

#include "kforge/core/python_env.h"

namespace kforge::core {

struct PythonNeed {
  std::string package;   // as `pip install` names it: "torch", "ml_dtypes"; "python" for itself
  std::string minimum;   // the oldest release kforge has been run with
  std::string for_what;  // what of kforge needs it
};

// python, numpy, ml_dtypes, jax, torch. The floors of Python, NumPy and ml_dtypes are what JAX
// 0.10's own metadata requires (Requires-Python >=3.11, numpy>=2.0, ml_dtypes>=0.5.0); JAX's and
// PyTorch's are the oldest releases kforge has been run with (scripts/python-requirements.txt pins
// jax 0.10.2; the H200 run had torch 2.11.0).
const std::vector<PythonNeed>& python_needs();

// Each need `info` falls short of, as a sentence saying what is missing or too old, what of
// kforge needs it, and the pip line that meets it; empty when every need is met (or when there is
// no environment at all: `info.problem` says that).
std::vector<std::string> python_shortfalls(const PythonEnvInfo& info);

// <0, 0, >0 as release `a` is older than, the same as, or newer than `b`: dotted numbers compared
// numerically, a local or pre-release tail ignored ("2.11.0+cu130" is 2.11.0; "2.4" is 2.4.0).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace kforge::core
