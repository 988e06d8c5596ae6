#pragma once
// The project's Python environment: a venv that scripts/setup makes beside the build (build/pyenv,
// next to build/bin/kforge) with pinned JAX, NumPy and PyTorch releases. Python implementations
// of tasks (workload.py, baseline.py) and the tests that check them run its interpreter.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::core {

// $KFORGE_PYENV (which `kforge --pyenv DIR` sets), else pyenv/ beside the folder of the running
// executable (build/bin → build/pyenv). Any environment with PyTorch and JAX will do: a venv, a
// conda environment, a prefix such as /usr (core/python_needs.h says what it must hold).
std::filesystem::path python_env_dir();
// The environment's interpreter: bin/python under `dir` (default python_env_dir()), else
// bin/python3 where only that exists (a prefix such as /usr).
std::filesystem::path python_executable(const std::filesystem::path& dir = {});

// What the environment holds, as its own interpreter reports it. Absence is a value, not an
// error: `problem` says what is missing and how to make it.
struct PythonEnvInfo {
  std::filesystem::path dir;
  bool found = false;  // the interpreter ran and reported
  std::string problem;
  std::string python_version, numpy_version, jax_version, torch_version;  // "" when not importable
  std::string jaxlib_version, ml_dtypes_version;
  std::vector<std::string> jax_backends;  // "cpu (1 device)", "gpu (8 devices: NVIDIA H100)"
  std::string jax_default_backend;        // where jax.jit runs: "cpu", "gpu", "tpu"
  bool pallas = false;                    // jax.experimental.pallas (and .tpu) import
  std::string jax_error, torch_error, pallas_error;  // why an import failed
  std::string numpy_error, ml_dtypes_error;
};

// Runs the venv's python once (imports numpy, jax, Pallas and torch) with a wall-clock limit;
// `dir` is the venv (default: python_env_dir()).
PythonEnvInfo probe_python_env(std::chrono::milliseconds timeout = std::chrono::seconds(60),
                               const std::filesystem::path& dir = {});

}  // namespace kforge::core
