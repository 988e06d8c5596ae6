#pragma once
// A set of tensors in one memfd, laid out by core::layout_tensors, as the parent holds it:
// input sets (filled, then sealed read-only for good) and output/result files.

#include <cstddef>
#include <string>
#include <vector>

#include "kforge/core/buffer_layout.h"
#include "kforge/core/result.h"
#include "kforge/core/task_resolve.h"

namespace kforge::eval {

class SharedSet {
 public:
  static Result<SharedSet> create(const std::vector<core::ResolvedTensor>& tensors,
                                  std::size_t copies, const char* name);
  SharedSet(SharedSet&& other) noexcept;
  SharedSet& operator=(SharedSet&& other) noexcept;
  SharedSet(const SharedSet&) = delete;
  ~SharedSet();

  // Pointer to tensor `i` of copy `copy`.
  unsigned char* tensor(std::size_t i, std::size_t copy = 0) const;
  int fd() const { return fd_; }
  const core::SetLayout& layout() const { return layout_; }

  // Forbids every future write (F_SEAL_WRITE): the parent's own mapping becomes read-only first.
  Status seal();
  // Forbids every new writable mapping and write(2) (F_SEAL_FUTURE_WRITE) but keeps kforge's own
  // writable mapping: for the timing inputs, which kforge perturbs between calls while the kernels
  // can only map them read-only.
  Status seal_future_writes();

 private:
  SharedSet() = default;
  int fd_ = -1;
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
  core::SetLayout layout_;
};

}  // namespace kforge::eval
