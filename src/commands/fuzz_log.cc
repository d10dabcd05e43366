#include "commands/fuzz_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "commands/fuzz_child.h"
#include "config/run_config.h"
#include "platform/printable.h"
#include "report/report.h"

namespace rwstress {

nlohmann::json trial_to_json(const TrialRecord& r) {
  return {{"trial", r.trial},         {"seed", r.seed},
          {"lock", r.lock},           {"argv", r.argv},
          {"command", shell_command(r.argv)},
          {"verdict", r.verdict},     {"exit_code", r.exit_code},
          {"signal", r.signal},       {"seconds", r.seconds},
          {"at", r.at},               {"violations", r.kinds},
          {"first", r.first},         {"last_line", r.last_line},
          {"schedule_digest", r.digest}};
}

TrialRecord trial_from_json(const nlohmann::json& j) {
  TrialRecord r;
  // A trial index is a whole number this campaign could have drawn: -3 or
  // 1e308 would otherwise convert to some index quietly.
  if (!j.at("trial").is_number_unsigned()) throw CorruptRecord("its trial index is not a whole number");
  r.trial = j.at("trial").get<std::uint64_t>();
  r.seed = j.at("seed").get<std::uint64_t>();
  r.lock = j.at("lock").get<std::string>();
  r.argv = j.at("argv").get<std::vector<std::string>>();
  r.verdict = j.at("verdict").get<std::string>();
  r.exit_code = j.at("exit_code").get<int>();
  r.signal = j.at("signal").get<std::string>();
  r.seconds = j.at("seconds").get<double>();
  r.at = j.at("at").get<double>();
  r.kinds = j.at("violations").get<std::vector<std::string>>();
  r.first = j.at("first").get<std::vector<std::string>>();
  r.last_line = j.at("last_line").get<std::string>();
  r.digest = j.at("schedule_digest").get<std::string>();
  if (r.argv.empty()) throw std::invalid_argument("empty argv");
  return r;
}

nlohmann::json check_to_json(const FindingCheck& c) {
  return {{"finding", c.id},
          {"runs", c.runs},
          {"reproduced", c.reproduced},
          {"shrunk", c.shrunk},
          {"shrunk_command", c.shrunk.empty() ? "" : shell_command(c.shrunk)},
          {"shrunk_runs", c.shrunk_runs},
          {"shrunk_reproduced", c.shrunk_reproduced},
          {"shrink_steps", c.shrink_steps},
          {"shrink_tries", c.shrink_tries},
          {"shrink_seconds", c.shrink_seconds},
          {"shrink_finished", c.shrink_finished},
          {"cut_short", c.cut_short}};
}

FindingCheck check_from_json(const nlohmann::json& j) {
  FindingCheck c;
  c.id = j.at("finding").get<std::string>();
  c.runs = j.at("runs").get<int>();
  c.reproduced = j.at("reproduced").get<int>();
  c.shrunk = j.at("shrunk").get<std::vector<std::string>>();
  c.shrunk_runs = j.at("shrunk_runs").get<int>();
  c.shrunk_reproduced = j.at("shrunk_reproduced").get<int>();
  c.shrink_steps = j.at("shrink_steps").get<int>();
  c.shrink_tries = j.at("shrink_tries").get<int>();
  c.shrink_seconds = j.at("shrink_seconds").get<double>();
  c.shrink_finished = j.at("shrink_finished").get<bool>();
  c.cut_short = j.value("cut_short", false);
  return c;
}

namespace {

// The complete lines of a JSONL file, each handed to `take`; a last line
// without its newline, or one that does not parse as the last line, is torn:
// dropped and said. A bad line before the last is corruption: an error.
std::string read_lines(const std::string& path, std::uint64_t* complete_bytes,
                       std::vector<std::string>* dropped,
                       const std::function<void(const nlohmann::json&)>& take) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fmt::format("{}: {}", path, std::strerror(errno));
  std::stringstream whole;
  whole << in.rdbuf();
  const std::string text = whole.str();
  std::size_t at = 0;
  int number = 0;
  *complete_bytes = 0;
  while (at < text.size()) {
    ++number;
    const std::size_t end = text.find('\n', at);
    const bool last = end == std::string::npos || end + 1 == text.size();
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    std::string problem;
    try {
      if (end == std::string::npos) throw std::invalid_argument("no newline");
      take(nlohmann::json::parse(line));
    } catch (const CorruptRecord& e) {  // whole, but not what this campaign wrote
      return fmt::format("{}: line {}: {}: the file is corrupt or from another campaign", path,
                         number, e.what());
    } catch (const std::exception& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      if (!last)
        return fmt::format("{}: line {} is not a campaign record ({}): the file is corrupt", path,
                           number, problem.substr(0, 120));
      dropped->push_back(fmt::format("{}: dropped a torn last line ({} bytes)", path, line.size()));
      return "";
    }
    *complete_bytes = end + 1;
    at = end + 1;
  }
  return "";
}

}  // namespace

namespace {

// What a summary shows of a text field read back from a log.
constexpr std::size_t kShownLine = 300;

const char* const kTrialVerdicts[] = {"PASS",  "FAIL",    "HANG",  "STARVED",
                                      "CRASH", "TIMEOUT", "ERROR", "INTERRUPTED"};

// The header's shard and lock set, checked once.
struct HeaderFacts {
  std::uint64_t shard_index = 0, shard_count = 1, trials = 0;
  std::set<std::string> locks;
};

HeaderFacts header_facts(const nlohmann::json& h) {
  HeaderFacts f;
  const nlohmann::json& index = h.at("shard_index");
  const nlohmann::json& count = h.at("shard_count");
  if (!index.is_number_unsigned() || !count.is_number_unsigned() || count.get<std::uint64_t>() == 0 ||
      index.get<std::uint64_t>() >= count.get<std::uint64_t>())
    throw CorruptRecord(fmt::format("the header's shard {}/{} is not a shard", index.dump(), count.dump()));
  f.shard_index = index;
  f.shard_count = count;
  const nlohmann::json& trials = h.at("campaign").at("trials");
  if (!trials.is_number_unsigned()) throw CorruptRecord("the header's trial count is not a whole number");
  f.trials = trials;
  const std::string locks = h.at("locks").get<std::string>();
  for (std::size_t from = 0; from <= locks.size();) {
    const std::size_t comma = std::min(locks.find(',', from), locks.size());
    f.locks.insert(locks.substr(from, comma - from));
    from = comma + 1;
  }
  return f;
}

// Whether a line agrees with itself: its verdict, exit code, signal,
// violations and the run's last line ("... -> VERDICT") say the same
// thing, as the campaign wrote them. "" or the disagreement.
std::string self_disagreement(const TrialRecord& r) {
  const int coded = exit_code_of_verdict(r.verdict);
  const bool by_exit = r.verdict == "PASS" || r.verdict == "FAIL" || r.verdict == "HANG" ||
                       r.verdict == "STARVED" || (r.verdict == "CRASH" && r.signal.empty());
  if (by_exit && r.exit_code != coded)
    return fmt::format("verdict {} with exit code {} (a {} trial exits {})", r.verdict, r.exit_code,
                       r.verdict, coded);
  if (r.verdict == "ERROR" && r.exit_code >= 0 && verdict_of_exit(r.exit_code) != "ERROR")
    return fmt::format("verdict ERROR with exit code {}, which is {}'s", r.exit_code,
                       verdict_of_exit(r.exit_code));
  if (!r.signal.empty() && r.verdict != "CRASH")
    return fmt::format("verdict {} with the signal {} (only a CRASH has one)", r.verdict, r.signal);
  if (r.verdict == "PASS" && (!r.kinds.empty() || !r.first.empty()))
    return "verdict PASS with violations";
  if (const std::size_t arrow = r.last_line.rfind(" -> "); by_exit && arrow != std::string::npos) {
    const std::string said = r.last_line.substr(arrow + 4);
    if (std::find(std::begin(kTrialVerdicts), std::end(kTrialVerdicts), said) != std::end(kTrialVerdicts) &&
        said != r.verdict)
      return fmt::format("verdict {} but its run's last line says -> {}", r.verdict, said);
  }
  return {};
}

// What the header alone says a trial line must be.
void check_against_header(const TrialRecord& r, const HeaderFacts& h) {
  if (std::string why = self_disagreement(r); !why.empty())
    throw CorruptRecord(fmt::format("trial {} disagrees with itself: {}", r.trial, why));
  if (std::find(std::begin(kTrialVerdicts), std::end(kTrialVerdicts), r.verdict) == std::end(kTrialVerdicts))
    throw CorruptRecord(fmt::format("trial {} has no verdict rwstress gives ('{}')", r.trial, r.verdict));
  if (h.trials > 0 && r.trial >= h.trials)
    throw CorruptRecord(fmt::format("trial {} is past the campaign's {} trials", r.trial, h.trials));
  if (r.trial % h.shard_count != h.shard_index)
    throw CorruptRecord(fmt::format("trial {} is not in shard {}/{}", r.trial, h.shard_index, h.shard_count));
  if (!h.locks.count(r.lock))
    throw CorruptRecord(fmt::format("trial {} ran lock '{}', which is not in the campaign's set", r.trial, r.lock));
  if (r.argv.empty() || r.argv[0] != "rwstress")
    throw CorruptRecord(fmt::format("trial {} has no rwstress command line", r.trial));
}

}  // namespace

std::string read_campaign(const std::string& dir, CampaignLog* log, const TrialFn& on_trial) {
  log->dir = dir;
  bool first = true;
  HeaderFacts facts;
  std::map<std::uint64_t, bool> interrupted;  // trial -> its last line was INTERRUPTED
  std::string err = read_lines(
      dir + "/trials.jsonl", &log->trials_bytes, &log->dropped, [&](const nlohmann::json& j) {
        if (first) {
          if (!j.contains("campaign_seed") || !j.contains("argv"))
            throw std::invalid_argument("no campaign header");
          log->header = j;
          facts = header_facts(j);
          first = false;
          return;
        }
        const TrialRecord r = trial_from_json(j);
        check_against_header(r, facts);
        // An interrupted trial never completed: a resumed campaign runs it
        // again, and the later line replaces it.
        auto [it, fresh] = interrupted.try_emplace(r.trial, r.verdict == "INTERRUPTED");
        if (!fresh && !it->second) throw CorruptRecord(fmt::format("trial {} twice", r.trial));
        it->second = r.verdict == "INTERRUPTED";
        on_trial(r, !fresh);
      });
  if (!err.empty()) return err;
  if (first) return fmt::format("{}/trials.jsonl: no campaign header: not a fuzz campaign", dir);
  if (access((dir + "/findings.jsonl").c_str(), F_OK) == 0) {
    err = read_lines(dir + "/findings.jsonl", &log->checks_bytes, &log->dropped,
                     [&](const nlohmann::json& j) {
                       FindingCheck c = check_from_json(j);
                       log->checks[c.id] = std::move(c);
                     });
    if (!err.empty()) return err;
  }
  return "";
}

std::string main_kind(const std::vector<std::string>& kinds) {
  // The most specific first. The exclusion kinds are one class: a lock that
  // lets a writer in beside others shows writer-exclusion, reader-exclusion,
  // torn records or a bad final state from one run to the next, and is one
  // bug.
  static const char* const kSpecific[] = {"lock-order", "lock-warning", "ordering", "trylock-truth", "downgrade",
                                          "lost-wakeup", "semaphore-bound", "semaphore-count",
                                          "not-idle", "preference", "spin-bound", "acquire-limit"};
  for (const char* k : kSpecific)
    if (std::find(kinds.begin(), kinds.end(), k) != kinds.end()) return k;
  return kinds.empty() ? "" : "exclusion";
}

std::string finding_key(const TrialRecord& r) {
  std::string key = r.lock + " " + r.verdict;
  // A hang is a hang, whatever else its run saw; a crash is its signal's.
  if (r.verdict == "CRASH") key += " " + r.signal;
  if (r.verdict == "FAIL")
    if (const std::string kind = main_kind(r.kinds); !kind.empty()) key += " " + kind;
  return key;
}

std::string finding_id(const std::string& key) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ULL;
  return fmt::format("{:08x}", std::uint32_t(h ^ (h >> 32)));
}

bool same_failure(const TrialRecord& trial, const std::string& verdict, const std::string& signal,
                  const std::vector<std::string>& kinds) {
  TrialRecord rerun;
  rerun.lock = trial.lock;
  rerun.verdict = verdict;
  rerun.signal = signal;
  rerun.kinds = kinds;
  return finding_key(rerun) == finding_key(trial);
}

void CampaignSummary::add(const TrialRecord& r) {
  seconds = std::max(seconds, r.at);
  // A trial interrupted and then run again by --resume (in the log, or live)
  // is owed no more: the set holds only those still owed.
  if (r.verdict == "INTERRUPTED") {
    interrupted_trials_.insert(r.trial);
    interrupted = interrupted_trials_.size();
    return;
  }
  interrupted_trials_.erase(r.trial);
  interrupted = interrupted_trials_.size();
  ++trials;
  ++table[r.lock][r.verdict];
  if (r.verdict == "PASS") return;
  if (exit_code_of_verdict(r.verdict) > exit_code_of_verdict(worst)) worst = r.verdict;
  const std::string key = finding_key(r);
  auto [it, fresh] = by_key_.try_emplace(key);
  Finding& f = it->second;
  ++f.trials;
  if (!fresh && f.first_trial.trial <= r.trial) return;
  // The first, or an earlier trial than the one kept (parallel jobs and
  // shards end out of order).
  f.id = finding_id(key);
  f.first = r.first;
  if (f.first.empty() && !r.last_line.empty()) f.first.push_back(r.last_line);
  f.first_trial = r;
}

void CampaignSummary::attach(const std::map<std::string, FindingCheck>& checks) {
  for (auto& [key, f] : by_key_)
    if (auto c = checks.find(f.id); c != checks.end()) f.check = c->second;
}

std::vector<const Finding*> CampaignSummary::findings() const {
  std::vector<const Finding*> out;
  for (const auto& [key, f] : by_key_) out.push_back(&f);
  std::sort(out.begin(), out.end(), [](const Finding* a, const Finding* b) {
    return a->first_trial.trial < b->first_trial.trial;
  });
  return out;
}

namespace {

const char* const kTableVerdicts[] = {"PASS", "FAIL", "HANG", "STARVED", "CRASH", "TIMEOUT", "ERROR"};

std::string joined(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::string rate_text(int reproduced, int runs) {
  if (runs == 0) return "not rerun";
  return fmt::format("{} of {} reruns{}", reproduced, runs,
                     reproduced == 0    ? " (did not fail again: a rare timing bug, or the run's luck)"
                     : reproduced < runs ? " (fails only sometimes: a timing bug)"
                                         : "");
}

}  // namespace

std::string kinds_text(const std::vector<std::string>& kinds) {
  return kinds.empty() ? "" : " [" + joined(kinds, ",") + "]";
}

std::string CampaignState::describe() const {
  if (complete) return cut_short.empty() ? "complete" : "complete; " + joined(cut_short, "; ");
  std::string out = "incomplete";
  if (!interrupted_by.empty()) out += ": interrupted by " + interrupted_by;
  if (owed > 0) out += fmt::format("{} {} trial(s) still owed", interrupted_by.empty() ? ":" : ",", owed);
  for (const std::string& c : cut_short) out += "; " + c;
  if (!interrupted_by.empty() || owed > 0) out += " (rwstress fuzz --resume DIR finishes it)";
  return out;
}

std::vector<std::string> summary_lines(const CampaignSummary& s) {
  std::vector<std::string> lines;
  lines.push_back("campaign " + s.state.describe());
  const std::vector<const Finding*> findings = s.findings();
  lines.push_back(fmt::format("{} trials in {:.1f}s ({:.1f} per minute); {} finding(s){}", s.trials,
                              s.seconds, s.per_minute(), findings.size(),
                              s.interrupted ? fmt::format("; {} interrupted", s.interrupted) : ""));
  std::string header = fmt::format("{:<26}", "LOCK");
  for (const char* v : kTableVerdicts) header += fmt::format(" {:>7}", v);
  lines.push_back(header);
  for (const auto& [lock, counts] : s.table) {
    std::string row = fmt::format("{:<26}", lock);
    for (const char* v : kTableVerdicts) {
      auto c = counts.find(v);
      row += fmt::format(" {:>7}", c == counts.end() ? 0 : c->second);
    }
    lines.push_back(row);
  }
  int number = 0;
  for (const Finding* found : findings) {
    const Finding& f = *found;
    lines.push_back("");
    const TrialRecord& r = f.first_trial;
    lines.push_back(fmt::format("finding {} ({}): {} {}{}{} in {} trial(s), first trial {}", ++number,
                                f.id, r.lock, r.verdict,
                                r.signal.empty() ? "" : " (" + r.signal + ")", kinds_text(r.kinds),
                                f.trials, r.trial));
    // (Lines read back from a log: shown escaped and cut, whatever is in it.)
    for (const std::string& line : f.first) lines.push_back("  " + printable(line, kShownLine));
    lines.push_back("  reproduce: " + shell_command(f.first_trial.argv));
    if (!f.check) {
      lines.push_back("  not yet rerun or shrunk");
      continue;
    }
    const FindingCheck& c = *f.check;
    lines.push_back("  reproduced: " + rate_text(c.reproduced, c.runs));
    if (c.cut_short) lines.push_back("  (the campaign's --time ran out: fewer reruns or shrink steps than asked)");
    if (c.shrunk.empty()) continue;
    lines.push_back(fmt::format("  shrunk ({} step(s), {} tries, {:.0f}s{}): {}", c.shrink_steps,
                                c.shrink_tries, c.shrink_seconds,
                                c.shrink_finished ? "" : ", budget spent", shell_command(c.shrunk)));
    lines.push_back("  shrunk reproduced: " + rate_text(c.shrunk_reproduced, c.shrunk_runs));
  }
  return lines;
}

nlohmann::json summary_json(const CampaignSummary& s, const nlohmann::json& header) {
  nlohmann::json table = nlohmann::json::object();
  for (const auto& [lock, counts] : s.table) table[lock] = counts;
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding* found : s.findings()) {
    const Finding& f = *found;
    nlohmann::json j = {{"id", f.id},
                        {"lock", f.first_trial.lock},
                        {"verdict", f.first_trial.verdict},
                        {"signal", f.first_trial.signal},
                        {"violations", f.first_trial.kinds},
                        {"first", f.first},
                        {"trials", f.trials},
                        {"first_trial", f.first_trial.trial},
                        {"command", shell_command(f.first_trial.argv)},
                        {"check", nullptr}};
    if (f.check) j["check"] = check_to_json(*f.check);
    findings.push_back(std::move(j));
  }
  return {{"rwstress_fuzz_summary", 1},
          {"campaign", header},
          {"complete", s.state.complete},
          {"interrupted_by", s.state.interrupted_by.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(s.state.interrupted_by)},
          {"trials_owed", s.state.owed},
          {"cut_short", s.state.cut_short},
          {"trials", s.trials},
          {"interrupted", s.interrupted},
          {"seconds", s.seconds},
          {"trials_per_minute", s.per_minute()},
          {"worst", s.worst},
          {"table", table},
          {"findings", findings}};
}

std::string summary_junit(const CampaignSummary& s, const std::string& campaign) {
  const std::vector<const Finding*> findings = s.findings();
  std::set<std::string> failing;
  for (const Finding* f : findings) failing.insert(f->first_trial.lock);
  int cases = 0;
  std::string body;
  for (const auto& [lock, counts] : s.table) {
    if (failing.count(lock)) continue;
    std::uint64_t n = 0;
    for (const auto& [v, c] : counts) n += c;
    ++cases;
    body += fmt::format("    <testcase classname=\"rwstress.fuzz\" name=\"{}: no finding in {} trial(s)\"/>\n",
                        xml_escape(lock), n);
  }
  for (const Finding* found : findings) {
    const Finding& f = *found;
    ++cases;
    std::string text = joined(f.first, "\n") + "\nreproduce: " + shell_command(f.first_trial.argv);
    if (f.check) {
      text += "\nreproduced: " + rate_text(f.check->reproduced, f.check->runs);
      if (!f.check->shrunk.empty()) text += "\nshrunk: " + shell_command(f.check->shrunk);
    }
    body += fmt::format(
        "    <testcase classname=\"rwstress.fuzz\" name=\"{}: {} {}\">\n"
        "      <failure message=\"{} {}{}\">{}</failure>\n    </testcase>\n",
        xml_escape(f.first_trial.lock), xml_escape(f.first_trial.verdict), f.id,
        xml_escape(f.first_trial.verdict), xml_escape(f.first_trial.lock),
        xml_escape(kinds_text(f.first_trial.kinds)),
        xml_escape(text));
  }
  // A campaign that did not do what it was asked (a signal, trials still
  // owed) is an error case of its own: its locks without a finding would
  // otherwise make a green suite of a campaign that was cut short.
  int errors = 0;
  if (!s.state.complete) {
    ++cases;
    ++errors;
    body += fmt::format(
        "    <testcase classname=\"rwstress.fuzz\" name=\"campaign\">\n"
        "      <error message=\"{}\" type=\"INCOMPLETE\"/>\n    </testcase>\n",
        xml_escape(s.state.describe()));
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}"
      "  </testsuite>\n</testsuites>\n",
      xml_escape(campaign), cases, findings.size(), errors, s.seconds, body);
}

std::string append_line(int fd, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::strerror(errno);
    done += std::size_t(n);
  }
  if (fsync(fd) != 0) return std::strerror(errno);
  return "";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + shell_word(a);
  return line;
}

}  // namespace rwstress
