#pragma once
// The two kinds of failure a command reports (Halide's user_error / internal_error), each with
// its exit status. A usage error is the caller's to fix: a mistyped option, a missing file, an
// unknown task. An internal error is not: a task of the suite whose own baseline fails its check,
// or kforge itself gone wrong; the message says so and asks for a report.

#include <stdexcept>

namespace kforge::cli {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 70;  // EX_SOFTWARE (sysexits.h)

// A problem with how kforge was called or with what it was given: printed, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A fault of the task suite or of kforge, not of the command: printed as an internal error,
// exit status 70.
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kforge::cli
