#pragma once
// A loaded implementation: dlopen'ed privately (RTLD_LOCAL, so its symbols and its libraries'
// never resolve anyone else's) and bound at once (RTLD_NOW: no lazy binding left to hijack), its
// entry point called with the buffers in ABI order.

#include <cstdint>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::runner {

class KernelLibrary {
 public:
  static Result<KernelLibrary> open(const std::string& path, const std::string& entry);

  // kernel(inputs..., outputs...) — every argument a pointer.
  void call(const std::vector<void*>& args) const;
  // generate(seed, inputs...)
  void call_generator(std::uint64_t seed, const std::vector<void*>& args) const;
  void* entry_address() const { return entry_; }

 private:
  void* handle_ = nullptr;
  void* entry_ = nullptr;
};

inline constexpr std::size_t kMaxKernelArgs = 24;

}  // namespace kforge::runner
