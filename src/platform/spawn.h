// Running another program to its end: a compiler, patch(1), a script, or
// rwstress itself. No shell: argv is passed as it is.
#pragma once

#include <string>
#include <vector>

namespace rwstress {

// Runs argv[0] (searched on PATH when it has no '/') with argv, its stdout
// and stderr appended to `log_path`, or left to this process's when
// `log_path` is empty; stdin is /dev/null. Returns the exit status, 128 +
// the signal that ended it, or -1 (with *error set) when it could not start.
//
// A program with a log runs in a process group of its own; when this
// process is interrupted (platform/interrupt.h) the signal is passed on to
// that group (a compiler's own children too), or to the program alone when
// it shares the terminal, and a group still there 5 s later is killed:
// nothing is left running behind an interrupted command.
int run_program(const std::vector<std::string>& argv, const std::string& log_path,
                std::string* error);

}  // namespace rwstress
