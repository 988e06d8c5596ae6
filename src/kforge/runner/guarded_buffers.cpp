// One reservation per buffer: [guard][pages][guard].
#include "kforge/runner/guarded_buffers.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kforge::runner {

std::size_t guard_bytes(std::size_t pages_bytes) {
  const std::size_t page = core::page_size();
  std::size_t g = std::clamp<std::size_t>(pages_bytes, 1u << 20, 64u << 20);
  return (g + page - 1) / page * page;
}

Result<GuardedBuffer> map_guarded_shared(int fd, const core::TensorSlot& slot, int prot,
                                         RegionKind kind, const std::string& name) {
  const std::size_t guard = guard_bytes(slot.pages_bytes);
  void* reserved = mmap(nullptr, slot.pages_bytes + 2 * guard, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED)
    return Error{fmt::format("reserving {} bytes for '{}': {}", slot.pages_bytes, name,
                             std::strerror(errno))};
  char* base = static_cast<char*>(reserved);
  char* pages = base + guard;
  void* m = mmap(pages, slot.pages_bytes, prot, MAP_SHARED | MAP_FIXED, fd,
                 static_cast<off_t>(slot.page_offset));
  if (m == MAP_FAILED)
    return Error{fmt::format("mapping {} '{}': {}", kind == RegionKind::input ? "input" : "output",
                             name, std::strerror(errno))};
  GuardedBuffer b{pages + (slot.data_offset - slot.page_offset), slot.bytes, pages,
                  slot.pages_bytes};
  auto data = reinterpret_cast<std::uintptr_t>(b.data);
  register_region(kind, name.c_str(), data, data + slot.bytes,
                  reinterpret_cast<std::uintptr_t>(base),
                  reinterpret_cast<std::uintptr_t>(pages + slot.pages_bytes + guard));
  return b;
}

Result<std::vector<GuardedBuffer>> map_tensor_set(int fd, const std::vector<TensorInfo>& tensors,
                                                  int prot, RegionKind kind) {
  core::SetLayout layout = core::layout_tensors(byte_sizes(tensors));
  std::vector<GuardedBuffer> set;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    auto b = map_guarded_shared(fd, layout.slots[i], prot, kind, tensors[i].name);
    if (!b) return b.error();
    set.push_back(*b);
  }
  return set;
}

}  // namespace kforge::runner
