// The table of targets. A new target is one more row (a test's own joins by TargetRegistration).
#include <algorithm>
#include <array>
#include <mutex>

#include "kforge/targets/cpp_target.h"
#include "kforge/targets/cuda_target.h"
#include "kforge/targets/pallas_target.h"

namespace kforge::target {
namespace {

const CppTarget kCpp;
const CudaTarget kCuda;
const PallasTarget kPallas;
constexpr std::array<const Target*, 3> kTargets = {&kCpp, &kCuda, &kPallas};

// The registered ones, after the table's rows.
std::mutex registered_mutex;
std::vector<const Target*>& registered() {
  static std::vector<const Target*> targets;
  return targets;
}

std::vector<const Target*> all_targets() {
  std::vector<const Target*> all(kTargets.begin(), kTargets.end());
  std::lock_guard g(registered_mutex);
  all.insert(all.end(), registered().begin(), registered().end());
  return all;
}

}  // namespace

const Target* find_target(std::string_view name) {
  for (const Target* t : all_targets())
    if (t->name() == name) return t;
  return nullptr;
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const Target* t : all_targets()) names.emplace_back(t->name());
  return names;
}

const Target& default_target() { return kCpp; }

TargetRegistration::TargetRegistration(const Target& target) : target_(&target) {
  std::lock_guard g(registered_mutex);
  registered().push_back(target_);
}

TargetRegistration::~TargetRegistration() {
  std::lock_guard g(registered_mutex);
  auto& r = registered();
  r.erase(std::remove(r.begin(), r.end(), target_), r.end());
}

}  // namespace kforge::target
