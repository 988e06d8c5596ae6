// The table of targets. A new target is one more row.
#include <array>

#include "kforge/target/cpp_target.h"
#include "kforge/target/cuda_target.h"
#include "kforge/target/pallas_target.h"

namespace kforge::target {
namespace {

const CppTarget kCpp;
const CudaTarget kCuda;
const PallasTarget kPallas;
constexpr std::array<const Target*, 3> kTargets = {&kCpp, &kCuda, &kPallas};

}  // namespace

const Target* find_target(std::string_view name) {
  for (const Target* t : kTargets)
    if (t->name() == name) return t;
  return nullptr;
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  names.reserve(std::size(kTargets));
  for (const Target* t : kTargets) names.emplace_back(t->name());
  return names;
}

const Target& default_target() { return kCpp; }

}  // namespace kforge::target
