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
int run_program(const std::vector<std::string>& argv, const std::string& log_path,
                std::string* error);

}  // namespace rwstress
