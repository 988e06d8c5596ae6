// Locates the venv and asks its interpreter what it holds (one short Python script, JSON back).
#include "kforge/core/python_env.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "kforge/core/paths.h"
#include "kforge/core/subprocess.h"

namespace kforge::core {
namespace {

// Each import is tried on its own, so a broken torch does not hide a working JAX. JAX lists only
// the backends whose plugins load; asking for an absent one raises, which is what "not found" is.
// Pallas (and its TPU module, which the pallas target's kernels import) is imported, not run.
const char* kProbe = R"py(import json, platform, sys
out = {"python": platform.python_version()}
try:
    import numpy
    out["numpy"] = numpy.__version__
except Exception as e:
    out["numpy_error"] = repr(e)
try:
    import ml_dtypes
    out["ml_dtypes"] = ml_dtypes.__version__
except Exception as e:
    out["ml_dtypes_error"] = repr(e)
try:
    import jax
    out["jax"] = jax.__version__
    import jaxlib
    out["jaxlib"] = jaxlib.__version__
    found = []
    for b in ("cpu", "gpu", "tpu"):
        try:
            devices = jax.devices(b)
        except Exception:
            continue
        n = len(devices)
        kinds = sorted({d.device_kind for d in devices}) if b != "cpu" else []
        found.append(f"{b} ({n} device{'s' if n != 1 else ''}{': ' if kinds else ''}{', '.join(kinds)})")
    out["jax_backends"] = found
    out["jax_default_backend"] = jax.default_backend()
    try:
        from jax.experimental import pallas
        from jax.experimental.pallas import tpu
        out["pallas"] = True
    except Exception as e:
        out["pallas_error"] = repr(e)
except Exception as e:
    out["jax_error"] = repr(e)
try:
    import torch
    out["torch"] = torch.__version__
except Exception as e:
    out["torch_error"] = repr(e)
print(json.dumps(out))
)py";

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

// A folder, read here as core/paths.cpp reads the others (docs/environment.md).
std::filesystem::path python_env_dir() {
  if (const char* d = std::getenv("KFORGE_PYENV"); d && *d) return d;
  return executable_dir().parent_path() / "pyenv";
}

std::filesystem::path python_executable(const std::filesystem::path& dir) {
  const auto bin = (dir.empty() ? python_env_dir() : dir) / "bin";
  std::error_code ec;
  if (!std::filesystem::exists(bin / "python", ec) && std::filesystem::exists(bin / "python3", ec))
    return bin / "python3";
  return bin / "python";
}

PythonEnvInfo probe_python_env(std::chrono::milliseconds timeout,
                               const std::filesystem::path& dir) {
  PythonEnvInfo info;
  info.dir = dir.empty() ? python_env_dir() : dir;
  const auto python = python_executable(info.dir);
  if (!std::filesystem::exists(python)) {
    info.problem = "no Python environment at " + info.dir.string() +
                   ": point KFORGE_PYENV (or kforge --pyenv) at one with JAX, NumPy and PyTorch "
                   "(a venv or conda environment of your own will do), or run scripts/setup in a "
                   "source checkout (it makes build/pyenv)";
    return info;
  }
  ProcessOptions po;
  po.timeout = timeout;
  // Quiet JAX's "no GPU/TPU found" warning; the backends list says the same.
  po.extra_env = {"TF_CPP_MIN_LOG_LEVEL=3"};
  auto r = run_process({python.string(), "-c", kProbe}, po);
  if (!r.success()) {
    info.problem =
        python.string() + ": " + r.describe() + (r.err.empty() ? "" : ": " + r.err.substr(0, 400));
    return info;
  }
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    info.problem = python.string() + ": unreadable report: " + r.out.substr(0, 200);
    return info;
  }
  info.found = true;
  info.python_version = text(j, "python");
  info.numpy_version = text(j, "numpy");
  info.numpy_error = text(j, "numpy_error");
  info.ml_dtypes_version = text(j, "ml_dtypes");
  info.ml_dtypes_error = text(j, "ml_dtypes_error");
  info.jax_version = text(j, "jax");
  info.jaxlib_version = text(j, "jaxlib");
  info.jax_default_backend = text(j, "jax_default_backend");
  info.pallas = j.value("pallas", false);
  info.pallas_error = text(j, "pallas_error");
  info.torch_version = text(j, "torch");
  info.jax_error = text(j, "jax_error");
  info.torch_error = text(j, "torch_error");
  if (auto it = j.find("jax_backends"); it != j.end() && it->is_array())
    for (const auto& b : *it)
      if (b.is_string()) info.jax_backends.push_back(b.get<std::string>());
  return info;
}

}  // namespace kforge::core
