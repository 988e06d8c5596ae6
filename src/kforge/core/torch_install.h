#pragma once
// Where PyTorch's C++ side is: the headers, libraries and CMake files a libtorch program (the cpp
// and cuda targets' baselines) compiles and links against. The torch wheel of the Python
// environment kforge uses comes first: a bare GPU machine has it and no dev packages. The
// system's libtorch (Debian's libtorch-dev) is the fallback.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::core {

struct TorchInstall {
  std::filesystem::path root;  // the wheel's torch/ folder (resolved); the system's prefix, /usr
  bool wheel = false;
  // The -I folders a libtorch program needs: ATen/ and torch/ (the C++ API) are found under them.
  // Empty for the system's, whose headers are in the compiler's own search path.
  std::vector<std::filesystem::path> include_dirs;
  std::filesystem::path lib_dir;    // libtorch_cpu.so and libc10.so
  std::filesystem::path cmake_dir;  // Torch/TorchConfig.cmake is under it; empty when absent
  // What a process that loads these libraries must be able to read: the wheel's torch/ and the
  // site-packages folders its libraries' run paths name (nvidia/ of a CUDA wheel, torch.libs/).
  std::vector<std::filesystem::path> runtime_dirs;
  std::string version;  // the wheel's torch.__version__ ("2.15.0+cu132"); "" for the system's
  bool cuda = false;    // libtorch_cuda.so beside libtorch_cpu.so

  // "torch 2.15.0+cu132 of the Python environment /opt/torch/.venv" or "the system's libtorch
  // (/usr/include/ATen)": what a baseline was built against, for messages.
  std::string describe() const;
};

// The torch wheel of the Python environment `env` (a venv, a conda environment, a prefix):
// lib/python3*/{site,dist}-packages/torch with its headers and libtorch_cpu.so. None without them.
std::optional<TorchInstall> wheel_torch(const std::filesystem::path& env);
// The system's libtorch under `prefix`: include/ATen/ATen.h and libtorch_cpu.so in lib/ or its
// multiarch folder.
std::optional<TorchInstall> system_torch(const std::filesystem::path& prefix = "/usr");
// The wheel of `env`, else the system's; an error naming what is missing in both places and how
// to mend it when neither exists.
Result<TorchInstall> find_torch(const std::filesystem::path& env,
                                const std::filesystem::path& system_prefix = "/usr");

}  // namespace kforge::core
