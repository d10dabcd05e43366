#include "model/lock_traits.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rwstress {

std::string test_shape(Family f, int readers, int writers, int count) {
  switch (f) {
    case Family::kRwlock: return fmt::format("{}R+{}W", readers, writers);
    case Family::kMutex: return fmt::format("{}T", writers);
    case Family::kSemaphore: return fmt::format("{}T/c{}", writers, count);
  }
  return "?";
}

const char* family_name(Family f) {
  switch (f) {
    case Family::kRwlock: return "rwlock";
    case Family::kSemaphore: return "semaphore";
    case Family::kMutex: return "mutex";
  }
  return "?";
}

const char* fairness_name(Fairness f) {
  switch (f) {
    case Fairness::kReaderPref: return "reader-pref";
    case Fairness::kWriterPref: return "writer-pref";
    case Fairness::kTaskFair: return "task-fair";
    case Fairness::kPhaseFair: return "phase-fair";
    case Fairness::kUnfair: return "unfair";
    case Fairness::kHandoff: return "hand-off";
  }
  return "?";
}

bool promises_share(Fairness f, bool writer_role) {
  switch (f) {
    case Fairness::kTaskFair:
    case Fairness::kPhaseFair: return true;
    case Fairness::kReaderPref: return !writer_role;
    case Fairness::kWriterPref: return writer_role;
    case Fairness::kUnfair:
    case Fairness::kHandoff: return false;
  }
  return false;
}

bool promises_bounded_wait(Fairness f, bool writer_role) {
  return f == Fairness::kHandoff || promises_share(f, writer_role);
}

std::string Capabilities::describe() const {
  std::vector<const char*> has;
  if (read_trylock) has.push_back("read-trylock");
  if (write_trylock) has.push_back("write-trylock");
  if (downgrade) has.push_back("downgrade");
  if (trylock) has.push_back("trylock");
  if (timeout) has.push_back("timeout");
  if (spins) has.push_back("spins");
  if (killable) has.push_back("killable");
  return has.empty() ? "-" : fmt::format("{}", fmt::join(has, ","));
}

}  // namespace rwstress
