// Looks on the disk only (no interpreter started): a baseline's compile must not wait for a
// Python that imports torch in seconds.
#include "kforge/core/torch_install.h"

#include <fmt/format.h>

#include <algorithm>

#include "kforge/core/fs.h"

namespace kforge::core {
namespace {

bool present(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

// torch.__version__ from the wheel's version.py ("__version__ = '2.15.0+cu132'").
std::string wheel_version(const std::filesystem::path& torch) {
  auto text = read_text(torch / "version.py");
  if (!text) return "";
  const std::string key = "__version__ = '";
  auto at = text->find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  auto end = text->find('\'', at);
  return end == std::string::npos ? "" : text->substr(at, end - at);
}

// Every packages folder of an environment: lib/python3.X/site-packages (venv, conda, pip),
// lib/python3/dist-packages (Debian's), the same under lib64/; sorted, so the choice is stable.
std::vector<std::filesystem::path> package_dirs(const std::filesystem::path& env) {
  std::vector<std::filesystem::path> out;
  for (const char* lib : {"lib", "lib64"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(env / lib, ec)) {
      if (e.path().filename().string().rfind("python3", 0) != 0) continue;
      for (const char* packages : {"site-packages", "dist-packages"})
        if (present(e.path() / packages)) out.push_back(e.path() / packages);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string TorchInstall::describe() const {
  if (!wheel)
    return fmt::format("the system's libtorch ({})", (root / "include" / "ATen").string());
  // root is .../lib/python3.X/site-packages/torch: four levels up is the environment.
  return fmt::format("torch {} of the Python environment {}", version.empty() ? "?" : version,
                     root.parent_path().parent_path().parent_path().parent_path().string());
}

std::optional<TorchInstall> wheel_torch(const std::filesystem::path& env) {
  for (const auto& packages : package_dirs(env)) {
    const auto torch = packages / "torch";
    if (!present(torch / "include" / "ATen" / "ATen.h") ||
        !present(torch / "lib" / "libtorch_cpu.so"))
      continue;
    std::error_code ec;
    // Resolved: the sandboxes' file walls are on real folders, and a venv may be a symlink.
    TorchInstall t;
    t.root = std::filesystem::canonical(torch, ec);
    if (ec) continue;
    t.wheel = true;
    t.include_dirs = {t.root / "include",
                      t.root / "include" / "torch" / "csrc" / "api" / "include"};
    t.lib_dir = t.root / "lib";
    if (present(t.root / "share" / "cmake" / "Torch")) t.cmake_dir = t.root / "share" / "cmake";
    t.runtime_dirs = {t.root};
    // A CUDA wheel's libtorch_cpu.so needs libcudart and libcupti from nvidia/ (its run path is
    // $ORIGIN/../../nvidia/...); auditwheel's copies go to torch.libs/.
    for (const char* beside : {"nvidia", "torch.libs"})
      if (auto dir = std::filesystem::canonical(t.root.parent_path() / beside, ec); !ec)
        t.runtime_dirs.push_back(dir);
    t.version = wheel_version(t.root);
    t.cuda = present(t.lib_dir / "libtorch_cuda.so");
    return t;
  }
  return std::nullopt;
}

std::optional<TorchInstall> system_torch(const std::filesystem::path& prefix) {
  if (!present(prefix / "include" / "ATen" / "ATen.h")) return std::nullopt;
  for (const auto& lib : {prefix / "lib" / "x86_64-linux-gnu", prefix / "lib64", prefix / "lib"}) {
    if (!present(lib / "libtorch_cpu.so")) continue;
    TorchInstall t;
    t.root = prefix;
    t.lib_dir = lib;
    if (present(lib / "cmake" / "Torch")) t.cmake_dir = lib / "cmake";
    t.cuda = present(lib / "libtorch_cuda.so");
    return t;
  }
  return std::nullopt;
}

Result<TorchInstall> find_torch(const std::filesystem::path& env,
                                const std::filesystem::path& system_prefix) {
  if (auto t = wheel_torch(env)) return *t;
  if (auto t = system_torch(system_prefix)) return *t;
  return Error{fmt::format(
      "no PyTorch C++ headers and libraries: the Python environment {} has no torch wheel with "
      "them (lib/python3*/site-packages/torch/include/ATen/ATen.h and lib/libtorch_cpu.so), and "
      "the system has no libtorch ({} and libtorch_cpu.so, Debian's libtorch-dev); point "
      "KFORGE_PYENV (or --pyenv) at an environment with PyTorch, or time against another partner "
      "(--partner reference or torch)",
      env.string(), (system_prefix / "include" / "ATen" / "ATen.h").string())};
}

}  // namespace kforge::core
