// A controlled schedule shown to a person: the folded text trace explore
// prints under a failure, and the same schedule as a Chrome trace-event
// file (explore --trace-json) that Perfetto and chrome://tracing open.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace rwstress {

struct ExploredSchedule;  // run/explore_run.h
struct ExploreShape;

// A thread as traces name it: R0, W2 (a rw lock's readers and writers) or T1.
std::string explore_thread_name(const ExploreShape& shape, int t);

// A word as a trace shows it: in the lock object (lock+0x18), in an
// object a thread named (its task, its stack), or its address.
std::string explore_word_name(const ExploredSchedule& e, const ExploreShape& shape,
                              const void* word);

// A failing schedule's last `last` trace groups as explore prints them (a
// run of one step folded into a line with its count, a cycle of 2 to 4
// steps repeated 3 times or more into its steps once and a count line),
// after a header line.
std::vector<std::string> explore_trace_lines(const ExploredSchedule& e, const ExploreShape& shape,
                                             int last);

// The schedule as trace events, appended to `events` (the traceEvents
// array of a Chrome trace-event JSON file): process `pid`, named `title`;
// a track per thread; a slice per step, step N at N µs (the time axis
// counts steps: the schedule has no other time); a slice per hold, from
// the harness's "inside" point to its "released" mark; flow arrows from a
// futex_wake() to the step of each thread it woke, and from a store to a
// load that read it as an older value (a memory model's weak choice);
// the findings, and a deadlock's or livelock's thread states, as instant
// events after the last step. `next_flow` numbers the arrows of a file.
void append_trace_events(nlohmann::json& events, const ExploredSchedule& e,
                         const ExploreShape& shape, int pid, const std::string& title,
                         const std::vector<std::string>& findings, std::uint64_t* next_flow);

}  // namespace rwstress
