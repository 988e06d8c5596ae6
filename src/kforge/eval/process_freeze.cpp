// SIGSTOP, the stop report, SIGCONT.
#include "kforge/eval/process_freeze.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>

#include "kforge/core/fs.h"
#include "kforge/eval/load_probe.h"

namespace kforge::eval {

void begin_freeze(pid_t child) { ::kill(child, SIGSTOP); }

FreezeOutcome wait_frozen(pid_t child) {
  // The kernel reports the stop once every thread has stopped. WNOWAIT leaves a death for the
  // caller to reap; the stop report is then taken, so that the next stop reports anew. (Polling
  // instead, every 5 us, made each stop cost 0.17-0.34 ms against 0.05 on a 2-core VM.)
  const auto id = static_cast<id_t>(child);
  siginfo_t info{};
  while (::waitid(P_PID, id, &info, WSTOPPED | WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  if (info.si_pid != child || info.si_code != CLD_STOPPED) return FreezeOutcome::died;
  siginfo_t taken{};
  ::waitid(P_PID, id, &taken, WSTOPPED | WNOHANG);
  return FreezeOutcome::frozen;
}

bool is_frozen(pid_t child) {
  // The main thread's state: continued, every thread runs or sleeps again.
  auto stat = core::read_text(fmt::format("/proc/{}/stat", child));
  return stat && parse_task_state(*stat) == 'T';
}

void thaw(pid_t child) { ::kill(child, SIGCONT); }

}  // namespace kforge::eval
