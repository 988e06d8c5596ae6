// One reservation per buffer: [guard][pages][guard].
#include "kforge/runner/guarded_buffers.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace kforge::runner {
namespace {

Result<char*> reserve(std::size_t pages_bytes) {
  const std::size_t page = core::page_size();
  void* base = mmap(nullptr, pages_bytes + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return Error{fmt::format("reserving {} bytes: {}", pages_bytes, std::strerror(errno))};
  return static_cast<char*>(base);
}

GuardedBuffer finish(char* base, std::size_t pages_bytes, std::size_t data_in_pages, std::size_t bytes, RegionKind kind, const std::string& name) {
  const std::size_t page = core::page_size();
  char* pages = base + page;
  GuardedBuffer b{pages + data_in_pages, bytes, pages, pages_bytes};
  auto data = reinterpret_cast<std::uintptr_t>(b.data);
  register_region(kind, name.c_str(), data, data + bytes, reinterpret_cast<std::uintptr_t>(base),
                  reinterpret_cast<std::uintptr_t>(pages + pages_bytes + page));
  return b;
}

}  // namespace

Result<GuardedBuffer> map_guarded_shared(int fd, const core::TensorSlot& slot, int prot, RegionKind kind, const std::string& name) {
  auto base = reserve(slot.pages_bytes);
  if (!base) return base.error();
  char* pages = *base + core::page_size();
  void* m = mmap(pages, slot.pages_bytes, prot, MAP_SHARED | MAP_FIXED, fd, static_cast<off_t>(slot.page_offset));
  if (m == MAP_FAILED) return Error{fmt::format("mapping {} '{}': {}", kind == RegionKind::input ? "input" : "output", name, std::strerror(errno))};
  return finish(*base, slot.pages_bytes, slot.data_offset - slot.page_offset, slot.bytes, kind, name);
}

Result<GuardedBuffer> map_guarded_private(std::size_t bytes, RegionKind kind, const std::string& name) {
  auto layout = core::layout_tensors({bytes});
  const auto& slot = layout.slots[0];
  auto base = reserve(slot.pages_bytes);
  if (!base) return base.error();
  char* pages = *base + core::page_size();
  void* m = mmap(pages, slot.pages_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (m == MAP_FAILED) return Error{fmt::format("allocating {} bytes for '{}': {}", bytes, name, std::strerror(errno))};
  return finish(*base, slot.pages_bytes, slot.data_offset, bytes, kind, name);
}

}  // namespace kforge::runner
