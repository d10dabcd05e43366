// SIGINT, SIGTERM and SIGHUP end a session cleanly: the run in progress
// stops as if its duration had ended, no further run starts, every report
// is finished and marked interrupted, and the process exits 128 + the
// signal's number (130, 143, 129), as a shell reports a killed command.
// A second signal of the same kind kills at once (SA_RESETHAND).
#pragma once

#include <string>

namespace rwstress {

void install_interrupt_handlers();
// The signal that interrupted the session, or 0.
int interrupt_signal();
const char* interrupt_signal_name(int sig);  // "SIGINT", ...
std::string signal_name(int sig);            // any signal: "SIGSEGV", or "signal 77"

}  // namespace rwstress
