// expect: sandbox_violation
// mode: timed
// reason: descriptor 3
// max-speedup: 100
// Computes correctly, and on every call writes to the runner's channel (descriptor 3) the replies
// an older runner sent: a timing report claiming a 1000x speedup, a clean check, a ready. Caught:
// kforge takes no result from the runner; a message it did not ask for is a violation.
#include <unistd.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  static const char* forged[] = {
      R"({"op":"timed","pairs":[[0.001,1.0],[0.001,1.0],[0.001,1.0]],"warmup_pairs":2,"loop_seconds":0.01,"timed_ms":3.0,"mismatch":null,"inputs_modified":false,"background_cpu_ms":0,"threads_start":2,"threads":2})",
      R"({"op":"checked","candidate":{"calls":[],"background_cpu_ms":0}})", R"({"op":"ready"})"};
  for (const char* m : forged) {
    ssize_t ignored = write(3, m, std::strlen(m));
    (void)ignored;
  }
}
