// SOCK_SEQPACKET framing with SCM_RIGHTS.
#include "kforge/runner/protocol.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kforge::runner {
namespace {

constexpr std::size_t kMaxMessage = 1 << 20;
constexpr std::size_t kMaxFds = 32;

}  // namespace

bool send_message(int socket, const nlohmann::json& body, const std::vector<int>& fds) {
  std::string text = body.dump();
  iovec iov{text.data(), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * fds.size()));
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(cm), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    ssize_t n = sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (n >= 0) return true;
    if (errno != EINTR) return false;
  }
}

Result<Message> receive_message(int socket,
                                std::optional<std::chrono::steady_clock::time_point> deadline) {
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      *deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return Error{"timeout"};
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{socket, POLLIN, 0};
    int r = poll(&p, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return Error{"timeout"};
    break;
  }
  std::string buffer(kMaxMessage, '\0');
  iovec iov{buffer.data(), buffer.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  do n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return Error{"closed"};
  Message out;
  for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    out.fds.resize(count);
    std::memcpy(out.fds.data(), CMSG_DATA(cm), count * sizeof(int));
  }
  if (msg.msg_flags & MSG_TRUNC) return Error{"malformed: message too long"};
  buffer.resize(static_cast<std::size_t>(n));
  out.body = nlohmann::json::parse(buffer, nullptr, false);
  if (out.body.is_discarded() || !out.body.is_object()) {
    for (int fd : out.fds) close(fd);
    return Error{fmt::format("malformed: {:.80}", buffer)};
  }
  return out;
}

bool write_message(int socket, const nlohmann::json& body) {
  std::string text = body.dump();
  for (;;) {
    ssize_t n = write(socket, text.data(), text.size());
    if (n >= 0) return static_cast<std::size_t>(n) == text.size();
    if (errno != EINTR) return false;
  }
}

Result<nlohmann::json> read_message(int socket) {
  static thread_local std::string buffer(kMaxMessage, '\0');
  buffer.resize(kMaxMessage);
  ssize_t n;
  do n = read(socket, buffer.data(), buffer.size());
  while (n < 0 && errno == EINTR);
  if (n <= 0) return Error{"closed"};
  auto j = nlohmann::json::parse(buffer.begin(), buffer.begin() + n, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{"malformed message"};
  return j;
}

Result<int> create_shared_file(const char* name, std::size_t bytes) {
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Error{fmt::format("memfd_create: {}", std::strerror(errno))};
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int e = errno;
    close(fd);
    return Error{fmt::format("cannot size shared memory to {} bytes: {}", bytes, std::strerror(e))};
  }
  return fd;
}

}  // namespace kforge::runner
