#pragma once
// An exclusive lock on <record>.lock while it lives, so that reading, changing and writing a
// record of the per-user cache (peaks, the partner's pace) is one step across kforge processes,
// and a record that is slow to make (the precompiled ATen header) is made by one of them only.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

namespace kforge::core {

class RecordLock {
 public:
  explicit RecordLock(const std::filesystem::path& record) {
    fd_ = ::open((record.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~RecordLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kforge::core
