#pragma once
// Turns a crash inside the kernel into a sentence: which signal, at which address, and what
// lives there ("12 bytes past the end of output 'y'", "a write to read-only input 'x'",
// "the stack of thread 1 overflowed", "forbidden system call socket"). The handler runs on an
// alternate stack, formats without allocating, sends one message on the channel and exits.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kforge::runner {

enum class RegionKind : std::uint8_t { input, output, stack };

// Registers a buffer (data range plus the guard pages around it) for fault classification.
void register_region(RegionKind kind, const char* name, std::uintptr_t data_begin,
                     std::uintptr_t data_end, std::uintptr_t guard_begin, std::uintptr_t guard_end);

// Says what lives at a faulting address: writes the sentence into `detail` (NUL-terminated)
// and returns the category ("input_write", "out_of_bounds", "stack_overflow", "wild", ...).
// The signal handler uses the same classification; exposed so tests can pin it down.
const char* describe_fault_address(std::uintptr_t addr, int si_code, char* detail,
                                   std::size_t size);

// Installs the handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGSYS; messages go to
// `channel_fd`, and `done_word` (the control page's, when there is one) is set to kFaulted and
// woken, so kforge stops waiting for the call at once.
void install_fault_handlers(int channel_fd, std::atomic<std::uint32_t>* done_word);

// Gives the calling thread an alternate signal stack and registers its stack for overflow
// detection. Call once in every thread that may run kernel code (the OpenMP warm-up does).
void prepare_thread_for_faults();

// What the runner was doing when the fault hit, reported with it ("check set 2", "timing").
void set_fault_phase(const char* phase);

}  // namespace kforge::runner
