#pragma once
// The wire between kforge and kforge-run-cuda, the process that holds a kernel and its device
// buffers: one request, one reply, over a socket. Requests carry an op, a buffer id and a
// length; replies a status and a payload (the bytes asked for, or an error's text). The child
// answers only what it is asked: a reply the parent did not ask for is a protocol violation.

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

namespace kforge::runner::cuda_wire {

// download copies after the work on the legacy stream; peek copies on a non-blocking stream of its
// own, waiting for nothing the kernel launched; synchronize waits for the whole context.
enum class Op : std::uint32_t {
  allocate = 1,
  upload = 2,
  download = 3,
  call = 4,
  flush_l2 = 5,
  peek = 6,
  synchronize = 7,
};

struct Request {
  Op op{};
  std::uint32_t id = 0;      // the buffer (upload, download); the argument count (call)
  std::uint64_t length = 0;  // payload bytes that follow (upload, call), or bytes asked for
};

struct Reply {
  std::uint32_t status = 0;  // 0 ok; 1 a CUDA error (payload: its text)
  std::uint32_t value = 0;   // allocate: the new buffer's id
  std::uint64_t length = 0;  // payload bytes that follow
};

inline bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

inline bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace kforge::runner::cuda_wire
