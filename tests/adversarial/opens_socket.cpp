// expect: sandbox_violation
// reason: socket
// Opens a network socket. Caught: seccomp refuses socket (and Landlock refuses TCP).
#include <sys/socket.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  socket(AF_INET, SOCK_STREAM, 0);
  rmsnorm_correct(x, scale, y);
}
