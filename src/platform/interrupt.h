// SIGINT, SIGTERM and SIGHUP end a session cleanly: the run in progress
// stops as if its duration had ended, no further run starts, every report
// is finished and marked interrupted, and the process exits 128 + the
// signal's number (130, 143, 129), as a shell reports a killed command.
// A second signal of the same kind kills at once (SA_RESETHAND).
//
// The handlers are installed first thing in main, before the command line
// is parsed, so that a signal in the first milliseconds of a run is not
// lost; a command that does not watch interrupt_signal() hands the signals
// back (release_interrupts) and dies of one as any program does. A signal
// the process was started with ignored (a background job of a script
// ignores SIGINT) is caught all the same by a watching command: `kill -INT`
// stops it.
#pragma once

#include <string>

namespace rwstress {

void install_interrupt_handlers();
// For a command that does not watch interrupt_signal(): the dispositions
// the process started with, and a signal that already came is delivered
// again under them (so it ends the process, unless it was ignored).
void release_interrupts();
// The signal that interrupted the session, or 0.
int interrupt_signal();
const char* interrupt_signal_name(int sig);  // "SIGINT", ...
std::string signal_name(int sig);            // any signal: "SIGSEGV", or "signal 77"
// "interrupted by SIGINT" for the session's signal, or "".
std::string interrupted_text();

}  // namespace rwstress
