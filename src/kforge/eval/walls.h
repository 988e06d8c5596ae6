#pragma once
// The walls this machine raises around untrusted code (a candidate, an --against kernel, a peer's
// worker, the compiler reading a kernel's source), said in every verdict and by `kforge hw`.
// Landlock is the file wall: without it a kernel's process, and the compiler that reads its
// #includes, may read whatever the user may read. A machine whose Linux has no Landlock (a GPU
// machine once had ABI 0) judges untrusted code only when the user asks for it explicitly
// (KFORGE_ALLOW_NO_LANDLOCK=1); every verdict then says that the file wall was missing.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/eval/runner_failure.h"

namespace kforge::eval {

struct Walls {
  int landlock_abi = 0;                   // 0: this kernel has no Landlock
  bool without_landlock_allowed = false;  // the user asked to judge without it
  // One line for humans: "Landlock ABI 6 (files), seccomp (system calls, own process only), ..."
  std::string describe() const;
  nlohmann::json to_json() const;
};

// The walls of this machine: Landlock's ABI as the kernel reports it, and the user's consent to
// judge without it, both read from the environment: KFORGE_ALLOW_NO_LANDLOCK=1 consents;
// KFORGE_LANDLOCK_ABI=0 makes kforge act as on a machine without Landlock (for tests: it can
// only lower the walls kforge believes in, never raise the ones the runner applies).
Walls machine_walls();

// Why untrusted code may not run under `walls`, or nothing when it may.
std::optional<Judgement> refuse_untrusted(const Walls& walls);

}  // namespace kforge::eval
