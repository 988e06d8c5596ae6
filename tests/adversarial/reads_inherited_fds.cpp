// expect: correct
// explicit: NoDescriptorOfKforgeIsInherited (holds a descriptor open first)
// Reads every descriptor above the channel, hoping kforge left one open (the store, a socket,
// a file with keys). Caught: kforge-run starts with only stdin, stdout, stderr and its channel.
#include <unistd.h>
#include <cstdio>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static bool looked = false;
  if (!looked) {
    int open_fds = 0;
    char found[128] = {};
    for (int fd = 4; fd < 1024; ++fd) {
      char buf[127] = {};
      ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
      if (n < 0) n = read(fd, buf, sizeof buf - 1);
      if (n >= 0) {
        ++open_fds;
        if (!found[0]) std::memcpy(found, buf, static_cast<std::size_t>(n));
      }
    }
    std::printf("inherited_fds=%d content=%s\n", open_fds, found);
    std::fflush(stdout);
    looked = true;
  }
  rmsnorm_correct(x, scale, y);
}
