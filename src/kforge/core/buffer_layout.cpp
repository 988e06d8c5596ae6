// End-aligned tensor placement.
#include "kforge/core/buffer_layout.h"

#include <unistd.h>

namespace kforge::core {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

SetLayout layout_tensors(const std::vector<std::size_t>& tensor_bytes) {
  const std::size_t page = page_size();
  SetLayout layout;
  std::size_t offset = 0;
  for (std::size_t bytes : tensor_bytes) {
    std::size_t padded = (bytes + 63) / 64 * 64;  // keeps 64-byte alignment; tail gap < 64 bytes
    std::size_t pages = std::max<std::size_t>(page, (padded + page - 1) / page * page);
    layout.slots.push_back({offset, pages, offset + pages - padded, bytes});
    offset += pages;
  }
  layout.file_bytes = offset;
  return layout;
}

}  // namespace kforge::core
