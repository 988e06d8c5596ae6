#pragma once
// The page kforge shares with one kernel process to start a call and to see it end. kforge
// writes a command and bumps `go`; the runner runs it and copies `go` into `done`. Both sides
// sleep on these words with futexes, so an idle side uses no CPU. The kernel owns its process
// and may write anything here: kforge takes `done` as a claim, times the call on its own clock,
// and checks the outputs it then reads (see eval/kernel_process.h).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace kforge::runner {

// call: reset the state, wake the OpenMP workers (an empty parallel region), call the kernel.
// noop: everything a call does but the call: its round trip is the harness's own cost per call,
// included in every time kforge measures, candidate and partner alike.
// Every command is timed by kforge from `go` to `done`: there is no untimed command in which the
// process could work for its next call (5 was an untimed "prepare"; it is refused as unknown).
enum class Command : std::uint32_t { call = 1, profile = 2, stop = 3, noop = 4 };

struct ControlPage {
  std::atomic<std::uint32_t> go{0};    // kforge: the sequence number of the latest command
  std::atomic<std::uint32_t> done{0};  // runner: the sequence number of the latest finished command
  std::uint32_t command = 0;           // a Command
  std::uint32_t input_set = 0;         // which input set the call reads (0: the timing inputs)
  std::uint32_t output_set = 0;        // which output set it writes
  double profile_seconds = 0;
};

// `done` after the runner's fault handler ran: a report is on the channel, the process is ending.
inline constexpr std::uint32_t kFaulted = 0xffffffffu;

// Futex operations on a word in shared memory (not FUTEX_PRIVATE: two processes map it).
void futex_wake_all(std::atomic<std::uint32_t>* word);
// Sleeps while *word == expected, at most `timeout` (forever when absent). Spurious returns are
// possible: callers re-check the word.
void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                std::optional<std::chrono::nanoseconds> timeout = std::nullopt);

}  // namespace kforge::runner
