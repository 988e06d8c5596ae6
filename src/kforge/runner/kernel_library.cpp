// Calls through a function pointer of the right arity (every argument is a pointer, so one
// signature per count is exact under the x86-64 System V ABI).
#include "kforge/runner/kernel_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <utility>

namespace kforge::runner {
namespace {

template <std::size_t... I>
void call_n(void* fn, void* const* a, std::index_sequence<I...>) {
  using F = void (*)(decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<F>(fn)(a[I]...);
}

template <std::size_t... I>
void call_seed_n(void* fn, std::uint64_t seed, void* const* a, std::index_sequence<I...>) {
  using F = void (*)(std::uint64_t, decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<F>(fn)(seed, a[I]...);
}

template <std::size_t N = 0>
void dispatch(void* fn, const std::vector<void*>& args) {
  if constexpr (N > kMaxKernelArgs) {
    return;
  } else {
    if (args.size() == N) return call_n(fn, args.data(), std::make_index_sequence<N>{});
    dispatch<N + 1>(fn, args);
  }
}

template <std::size_t N = 0>
void dispatch_seed(void* fn, std::uint64_t seed, const std::vector<void*>& args) {
  if constexpr (N > kMaxKernelArgs) {
    return;
  } else {
    if (args.size() == N) return call_seed_n(fn, seed, args.data(), std::make_index_sequence<N>{});
    dispatch_seed<N + 1>(fn, seed, args);
  }
}

}  // namespace

Result<KernelLibrary> KernelLibrary::open(const std::string& path, const std::string& entry) {
  KernelLibrary lib;
  lib.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle_) return Error{fmt::format("cannot load {}: {}", path, dlerror())};
  lib.entry_ = dlsym(lib.handle_, entry.c_str());
  if (!lib.entry_) return Error{fmt::format("{} does not export `{}`", path, entry)};
  return lib;
}

void KernelLibrary::call(const std::vector<void*>& args) const { dispatch(entry_, args); }

void KernelLibrary::call_generator(std::uint64_t seed, const std::vector<void*>& args) const {
  dispatch_seed(entry_, seed, args);
}

}  // namespace kforge::runner
