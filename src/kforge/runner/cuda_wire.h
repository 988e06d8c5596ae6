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

// time_calls: a batch of timed calls (see BatchHeader);
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
  time_calls = 8,
  gather = 9,
};

// A gather request's payload: ranges of one buffer; the reply's payload: their bytes in order
// (the judge compares samples of large tensors instead of reading them whole every pair).
struct Range {
  std::uint64_t offset = 0, length = 0;
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

// A time_calls request: `calls` calls of the kernel, each on inputs perturbed on the device from
// pristine copies kforge uploaded once, with outputs poisoned and L2 flushed first, the device
// idle when the call starts, the call between two events on the kernel's stream, then the whole
// context synchronized and each output copied at once to a snapshot buffer of kforge's on a
// stream that waits for nothing. The payload after the header: BatchInput[inputs], the output
// buffer ids [outputs], the snapshot buffer ids [calls * outputs], then the perturbation tables,
// one per call and perturbed input, kTableElements of the input's type each, which the runner
// uploads into `table_buffer`. The reply's payload: CallTimes[calls].
struct BatchHeader {
  std::uint32_t calls = 0;
  std::uint32_t inputs = 0;
  std::uint32_t outputs = 0;
  std::uint32_t flags = 0;  // kNullCall: every step but the call itself (the overhead's measure)
  std::uint32_t table_buffer = 0;
  std::uint32_t reserved = 0;
};
constexpr std::uint32_t kNullCall = 1;
constexpr std::uint64_t kTableElements = 4096;

// How an input is made fresh for each call: copied from its pristine buffer, or multiplied by a
// table of factors (core::apply_perturb_table), as f32 or f64.
enum class Fresh : std::uint32_t { copy = 0, scale_f32 = 1, scale_f64 = 2 };
struct BatchInput {
  std::uint32_t buffer = 0, pristine = 0;
  Fresh fresh = Fresh::copy;
  std::uint32_t reserved = 0;
  std::uint64_t bytes = 0;
};
inline std::uint64_t table_bytes(Fresh f) {
  return f == Fresh::scale_f32   ? kTableElements * 4
         : f == Fresh::scale_f64 ? kTableElements * 8
                                 : 0;
}

// Per call: the time between the events around it on the kernel's stream, and the runner's own
// clock from just before the call to the end of the context-wide synchronization (work the kernel
// put on a stream of its own is in the second, not the first). Host-memory mode has no events:
// both are the host clock.
struct CallTimes {
  double device_ms = 0;
  double host_ms = 0;
};
// Status of a reply to a request the runner cannot serve in this process (no perturbation
// kernel: the judge then times call by call).
constexpr std::uint32_t kUnsupported = 2;

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
