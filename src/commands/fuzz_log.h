// A fuzz campaign's directory (fuzz --out DIR) and what is made from it:
//   trials.jsonl    a header line, then one line per trial as it ends
//   findings.jsonl  one line per finding once it is reproduced and shrunk
//   repro-ID.sh     each finding's reproducer
// Each line is written whole and fsynced, so a campaign killed at any
// moment leaves files whose every complete line parses; a torn last line is
// dropped on reading (and said). The summary — lock x verdict table and
// findings — is made from the records alone, so a live campaign, a resumed
// one and a merge of shards print it the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rwstress {

// One trial's line in trials.jsonl.
struct TrialRecord {
  std::uint64_t trial = 0;  // its index k in the campaign
  std::uint64_t seed = 0;   // the trial's own --seed
  std::string lock;
  std::vector<std::string> argv;  // what ran (argv[0] "rwstress")
  std::string verdict;            // PASS FAIL HANG STARVED CRASH TIMEOUT ERROR INTERRUPTED
  int exit_code = -1;
  std::string signal;
  double seconds = 0;  // the trial's wall time
  double at = 0;       // the campaign's elapsed seconds when it ended
  std::vector<std::string> kinds;  // violation kinds
  std::vector<std::string> first;  // their first lines
  std::string last_line;
  std::string digest;  // the injection schedule digest
};

nlohmann::json trial_to_json(const TrialRecord& r);
TrialRecord trial_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception

// What reproducing and shrinking a finding came to (a line of findings.jsonl).
struct FindingCheck {
  std::string id;
  int runs = 0, reproduced = 0;  // the first failing trial's command, run again
  std::vector<std::string> shrunk;  // the shrunk reproducer's argv; empty: not shrunk
  int shrunk_runs = 0, shrunk_reproduced = 0;
  int shrink_steps = 0, shrink_tries = 0;
  double shrink_seconds = 0;
  bool shrink_finished = false;  // false: the shrink budget ran out first
  bool cut_short = false;        // the campaign's --time ran out before the reruns asked for
};

nlohmann::json check_to_json(const FindingCheck& c);
FindingCheck check_from_json(const nlohmann::json& j);

// A campaign directory as read back. The trials are not kept: each is
// handed to the reader's callback as it is read, so reading an 8-hour log
// costs no more memory than a short one.
struct CampaignLog {
  std::string dir;
  nlohmann::json header;
  std::map<std::string, FindingCheck> checks;  // by finding id
  std::uint64_t trials_bytes = 0;  // trials.jsonl's complete lines; what follows is torn
  std::uint64_t checks_bytes = 0;  // findings.jsonl's
  std::vector<std::string> dropped;  // what was torn and dropped, said once each
};

// A whole line that this campaign cannot have written (an index out of
// range or in another shard, a lock not in its set, an unknown verdict, a
// draw other than its seed's): corruption, refused in one line, never
// dropped as a torn tail. Thrown from a TrialFn, it refuses the log too.
struct CorruptRecord : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Called for each trial line, in order. `replaces_interrupted`: an earlier
// line had this trial INTERRUPTED (a resumed campaign ran it again).
using TrialFn = std::function<void(const TrialRecord&, bool replaces_interrupted)>;

// Reads DIR; returns "" or the one-line reason it cannot.
std::string read_campaign(const std::string& dir, CampaignLog* log, const TrialFn& on_trial);

// A finding's key and its short, stable id (the same in every shard, every
// resume and every merge): lock and verdict, with a CRASH's signal and a
// FAIL's main violation kind (main_kind: the most specific, or "exclusion").
std::string main_kind(const std::vector<std::string>& kinds);
std::string finding_key(const TrialRecord& r);
std::string finding_id(const std::string& key);

// Whether a rerun (its verdict, signal and kinds) failed the way `trial`
// did: the same finding key.
bool same_failure(const TrialRecord& trial, const std::string& verdict, const std::string& signal,
                  const std::vector<std::string>& kinds);

// Its lock, verdict, signal and kinds are the first trial's.
struct Finding {
  std::string id;
  std::vector<std::string> first;  // the first trial's violation lines, or its last line
  std::uint64_t trials = 0;
  TrialRecord first_trial;  // the lowest-numbered failing trial
  std::optional<FindingCheck> check;
};

// " [kind,kind]" for a list of violation kinds, "" for none.
std::string kinds_text(const std::vector<std::string>& kinds);

// Whether a campaign did what it was asked, said in every summary.
struct CampaignState {
  bool complete = true;        // every trial asked for ran (or --time ran out), no signal
  std::string interrupted_by;  // "SIGINT", or ""
  std::uint64_t owed = 0;      // --trials N: trials of this shard not yet run
  std::vector<std::string> cut_short;  // what the --time budget or a signal cut short
  std::string describe() const;       // "complete", "incomplete: interrupted by SIGTERM, ..."
};

// The lock x verdict table and the findings, built one trial at a time:
// memory grows with the number of locks and findings, not of trials.
class CampaignSummary {
 public:
  // A trial's line; an INTERRUPTED one is owed until a later line runs it.
  void add(const TrialRecord& r);
  // Each finding's check, where `checks` has one.
  void attach(const std::map<std::string, FindingCheck>& checks);
  std::vector<const Finding*> findings() const;  // by first trial
  std::size_t finding_count() const { return by_key_.size(); }

  std::uint64_t trials = 0;  // INTERRUPTED ones not counted
  std::uint64_t interrupted = 0;  // trials whose last line is INTERRUPTED
  CampaignState state;
  double seconds = 0;  // the campaign's elapsed time (the latest trial's end)
  std::map<std::string, std::map<std::string, std::uint64_t>> table;  // lock -> verdict -> trials
  std::string worst = "PASS";
  double per_minute() const { return seconds > 0 ? double(trials) * 60 / seconds : 0; }

 private:
  std::map<std::string, Finding> by_key_;
  std::set<std::uint64_t> interrupted_trials_;
};

// The summary as text lines: the table, each finding with its rate and its
// shrunk reproducer, and the trial rate.
std::vector<std::string> summary_lines(const CampaignSummary& s);

// --json: the summary as one document; --junit: one test case per lock
// without a finding and one failing test case per finding.
nlohmann::json summary_json(const CampaignSummary& s, const nlohmann::json& header);
std::string summary_junit(const CampaignSummary& s, const std::string& campaign);

// Durable append of one line (written whole, then fsync); "" or the error.
std::string append_line(int fd, const std::string& line);

// argv as one shell command line, each word quoted where the shell needs it.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace rwstress
