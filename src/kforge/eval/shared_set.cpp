// memfd + mmap, sealed on request.
#include "kforge/eval/shared_set.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "kforge/runner/protocol.h"

namespace kforge::eval {

Result<SharedSet> SharedSet::create(const std::vector<core::ResolvedTensor>& tensors,
                                    std::size_t copies, const char* name) {
  std::vector<std::size_t> bytes;
  bytes.reserve(tensors.size());
  for (const auto& t : tensors) bytes.push_back(t.bytes);
  SharedSet s;
  s.layout_ = core::layout_tensors(bytes);
  s.bytes_ = s.layout_.file_bytes * copies;
  auto fd = runner::create_shared_file(name, s.bytes_);
  if (!fd) return fd.error();
  s.fd_ = *fd;
  void* p = mmap(nullptr, s.bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd_, 0);
  if (p == MAP_FAILED)
    return Error{
        fmt::format("mapping {} bytes of shared memory: {}", s.bytes_, std::strerror(errno))};
  s.data_ = static_cast<unsigned char*>(p);
  // A process forked meanwhile (a compiler, a runner) would otherwise hold a writable copy of
  // this mapping until it execs, and sealing would fail with EBUSY.
  madvise(p, s.bytes_, MADV_DONTFORK);
  return s;
}

SharedSet::SharedSet(SharedSet&& o) noexcept { *this = std::move(o); }

SharedSet& SharedSet::operator=(SharedSet&& o) noexcept {
  std::swap(fd_, o.fd_);
  std::swap(data_, o.data_);
  std::swap(bytes_, o.bytes_);
  std::swap(layout_, o.layout_);
  return *this;
}

SharedSet::~SharedSet() {
  if (data_) munmap(data_, bytes_);
  if (fd_ >= 0) close(fd_);
}

unsigned char* SharedSet::tensor(std::size_t i, std::size_t copy) const {
  return data_ + copy * layout_.file_bytes + layout_.slots[i].data_offset;
}

Status SharedSet::seal() {
  if (munmap(data_, bytes_) != 0) return Error{fmt::format("munmap: {}", std::strerror(errno))};
  data_ = nullptr;
  // The kernel refuses the seal (EBUSY) while any page is still referenced from elsewhere; such
  // references (page-cache batching) are released within moments, so retry briefly.
  int attempts = 0;
  while (fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    if (errno != EBUSY || ++attempts > 200)
      return Error{fmt::format("sealing inputs: {}", std::strerror(errno))};
    usleep(1000);
  }
  void* p = mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED)
    return Error{fmt::format("remapping sealed inputs: {}", std::strerror(errno))};
  data_ = static_cast<unsigned char*>(p);
  return ok_status();
}

Status SharedSet::seal_future_writes() {
  if (fcntl(fd_, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return Error{fmt::format("sealing the timing inputs: {}", std::strerror(errno))};
  return ok_status();
}

}  // namespace kforge::eval
