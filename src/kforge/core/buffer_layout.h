#pragma once
// How a set of tensors sits in one shared-memory file: each tensor in its own run of pages,
// its data ending where its pages end, so that the guard page the runner maps after every run
// catches the first byte read or written past the end. Parent and runner both compute this.

#include <cstddef>
#include <vector>

namespace kforge::core {

struct TensorSlot {
  std::size_t page_offset = 0;  // where the tensor's pages start in the file
  std::size_t pages_bytes = 0;  // length of its pages
  std::size_t data_offset = 0;  // where its data starts in the file (64-byte aligned)
  std::size_t bytes = 0;
};

struct SetLayout {
  std::vector<TensorSlot> slots;
  std::size_t file_bytes = 0;
};

std::size_t page_size();
SetLayout layout_tensors(const std::vector<std::size_t>& tensor_bytes);

}  // namespace kforge::core
