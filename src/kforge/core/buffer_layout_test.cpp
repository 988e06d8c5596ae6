// Buffers end where their pages end (so the guard page catches the first byte past the end)
// and start 64-byte aligned.
#include "kforge/core/buffer_layout.h"

#include <gtest/gtest.h>

namespace kforge::core {

TEST(BufferLayout, EndAlignedAnd64ByteAligned) {
  auto layout = layout_tensors({4096 * 3, 100, 64});
  const std::size_t page = page_size();
  ASSERT_EQ(layout.slots.size(), 3u);
  for (const auto& s : layout.slots) {
    EXPECT_EQ(s.page_offset % page, 0u);
    EXPECT_EQ(s.data_offset % 64, 0u);
    EXPECT_LE(s.data_offset + s.bytes, s.page_offset + s.pages_bytes);
    EXPECT_LT(s.page_offset + s.pages_bytes - (s.data_offset + s.bytes),
              64u);  // tail gap under 64 bytes
  }
  EXPECT_EQ(layout.slots[0].data_offset, 0u);
  EXPECT_EQ(layout.file_bytes, layout.slots[2].page_offset + layout.slots[2].pages_bytes);
}

}  // namespace kforge::core
