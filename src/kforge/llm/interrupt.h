#pragma once
// Ctrl-C for commands that talk to models: the first SIGINT sets a flag that calls in flight
// poll (they end as cancelled, with nothing half-written) and that loops check between steps,
// and says so on stderr at once; a second SIGINT ends the process at once, as an unhandled one
// would.

#include <atomic>

namespace kforge::llm {

// Installs the handler (once; later calls return the same flag).
const std::atomic<bool>* install_interrupt_handler();
// The same flag without installing the handler: for the layers below (the compiler, the lock, the
// quiet wait) of any command; it only ever turns true in a command that installed the handler.
const std::atomic<bool>* interrupt_flag();
// Lowers the flag again (a REPL that handled the interrupt and goes on).
void clear_interrupt();
// Whether an interrupt is pending (main turns it into exit status 130, as a shell expects).
bool interrupt_requested();

}  // namespace kforge::llm
