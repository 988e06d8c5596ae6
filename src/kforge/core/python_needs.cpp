// The Python environment's needs, checked against what its interpreter reported.
#include "kforge/core/python_needs.h"

#include <fmt/format.h>

#include <cctype>

namespace kforge::core {
namespace {

// The numbers of a release: "2.11.0+cu130" → {2, 11, 0}; stops at the first part that does not
// start with a digit, and reads only the leading digits of a part ("0rc1" → 0).
std::vector<long> release_numbers(std::string_view v) {
  std::vector<long> out;
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
      n = n * 10 + (v[i++] - '0');
    out.push_back(n);
    while (i < v.size() && std::isalnum(static_cast<unsigned char>(v[i]))) ++i;  // "rc1"
    if (i < v.size() && v[i] == '.')
      ++i;
    else
      break;
  }
  return out;
}

// What the probe found for a need: the version, or "" with the import's error.
std::pair<std::string, std::string> found(const PythonEnvInfo& info, const std::string& package) {
  if (package == "python") return {info.python_version, ""};
  if (package == "numpy") return {info.numpy_version, info.numpy_error};
  if (package == "ml_dtypes") return {info.ml_dtypes_version, info.ml_dtypes_error};
  if (package == "jax") return {info.jax_version, info.jax_error};
  if (package == "torch") return {info.torch_version, info.torch_error};
  return {"", "not probed"};
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  auto x = release_numbers(a), y = release_numbers(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const long p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

const std::vector<PythonNeed>& python_needs() {
  static const std::vector<PythonNeed> needs = {
      {"python", "3.11", "every Python worker"},
      {"numpy", "2.0", "every Python worker"},
      {"ml_dtypes", "0.5", "JAX, the xla peer and the pallas target"},
      {"jax", "0.10", "the pallas target and the xla peer"},
      {"torch", "2.11", "the torch peers and the cuda target's baseline"},
  };
  return needs;
}

std::vector<std::string> python_shortfalls(const PythonEnvInfo& info) {
  std::vector<std::string> out;
  if (!info.found) return out;
  const auto pip = python_executable(info.dir).string() + " -m pip install";
  for (const auto& need : python_needs()) {
    auto [version, error] = found(info, need.package);
    if (need.package == "python") {
      if (compare_versions(version, need.minimum) < 0)
        out.push_back(
            fmt::format("Python {} is older than {}, which {} needs: name an "
                        "environment of a newer Python",
                        version, need.minimum, need.for_what));
      continue;
    }
    if (version.empty())
      out.push_back(fmt::format("{} is missing{}, needed by {}: {} '{}>={}'", need.package,
                                error.empty() ? "" : " (" + error.substr(0, 200) + ")",
                                need.for_what, pip, need.package, need.minimum));
    else if (compare_versions(version, need.minimum) < 0)
      out.push_back(fmt::format("{} {} is older than {}, needed by {}: {} '{}>={}'", need.package,
                                version, need.minimum, need.for_what, pip, need.package,
                                need.minimum));
  }
  return out;
}

}  // namespace kforge::core
