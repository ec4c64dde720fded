// Fault suite: `culprit bisect run` killed with SIGKILL at every step it can be
// seen to take, then `culprit bisect resume` until it finishes. A real
// temporary git history (libgit2), real builds with cc, real measurements of
// a tiny C program through the culprit executable. The slowdown is 2x, so the
// answer is the same every time; the assertions are about what the bisect
// names and keeps, never about time.
//
// Kill points are found by watching what culprit does, not by hooks in it:
// each line it prints on stderr, each save of .culprit/bisect.json, each
// record and each build-cache entry that appears, and, between two saves of
// the state, the engine runs it makes (the engine appends to a run log), so
// that a kill also lands inside a sitting: the confirmation, a batch, the
// verification. Each process is killed at the first point no earlier process
// was killed at, so the chain of resumes walks through the whole bisect.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/atomic_file.h"
#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/fault_checks.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 4000000;  // 2x from the culprit on
constexpr int kLast = 16;
constexpr int kBroken = 8;  // the first split: the bisect steps around it
constexpr int kCulprit = 11;

// The loop engine, plus one line appended to $FAULT_RUN_LOG per run (after
// the timed loops, so it is not measured), for the watcher to count runs.
std::string EngineSource(const std::string& tag, long work, LoopEngineVariant variant) {
  std::string source = LoopEngineSource(tag, work, variant);
  const std::string end = "  return 0;\n}\n";
  size_t at = source.rfind(end);
  if (at == std::string::npos) throw std::runtime_error("unexpected engine source");
  source.insert(at,
                "  { const char* p = getenv(\"FAULT_RUN_LOG\");\n"
                "    FILE* f = p ? fopen(p, \"a\") : NULL;\n"
                "    if (f) { fputs(\"r\\n\", f); fclose(f); } }\n");
  return source;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// A progress line without what changes from run to run (timings, ratios).
std::string KillPointOfLine(const std::string& line) {
  static const std::regex step(R"(^(step +\d+ +\S+ +[0-9a-f]{10}).*)");
  static const std::regex seconds(R"( (at|in) [0-9.]+ s)");
  static const std::regex timing(R"(\([0-9.]+ s\))");
  std::smatch m;
  if (std::regex_match(line, m, step)) return "line: " + m[1].str();
  if (line.rfind("loop  good", 0) == 0) return "line: confirmation summary";
  std::string out = std::regex_replace(line, seconds, "");
  return "line: " + std::regex_replace(out, timing, "");
}

class FaultBisectKill : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    for (int i = 0; i <= kLast; ++i) {
      std::string message = "revision " + std::to_string(i);
      if (i == kCulprit) message = "Double the hash loop (slower)";
      if (i == kBroken) message = "Half-finished edit that does not compile";
      commits_.push_back(
          git.Commit({{"main.c", EngineSource(message, i >= kCulprit ? kSlowWork : kFastWork,
                                              i == kBroken ? LoopEngineVariant::kSyntaxError
                                                           : LoopEngineVariant::kNormal)}},
                     {}, message));
    }
    config_ = WriteLoopEngineConfig(dir_.path(), "10s", 0.1);
  }

  std::vector<std::string> Argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {CulpritExe(), "--config", config_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  fs::path records_dir() const { return dir_.path() / "records"; }
  fs::path cache_dir() const { return dir_.path() / "cache"; }
  fs::path state_dir() const { return dir_.path() / ".culprit"; }
  fs::path state_path() const { return state_dir() / "bisect.json"; }
  fs::path run_log() const { return dir_.path() / "runs.log"; }

  long EngineRuns() const {
    struct stat st {};
    return ::stat(run_log().c_str(), &st) == 0 ? st.st_size / 2 : 0;
  }

  // "status:steps:pairs" of the saved state; "" when there is none.
  std::string StateKey() const {
    Result<BisectState> state = LoadBisectState(state_path());
    if (!state) return "";
    int pairs = 0;
    if (!state->search_json.empty()) {
      if (Result<BisectSearch> search = BisectSearch::FromJson(state->search_json)) {
        pairs = search->pairs_used();
      }
    }
    return std::string(BisectStatusName(state->status)) + ":" + std::to_string(state->log.size()) +
           ":" + std::to_string(pairs);
  }

  // The kill point a new record marks: what it records, not its id.
  std::string KillPointOfRecord(const fs::path& path) const {
    Result<Record> record = RecordFromJson(ReadAll(path), path.string());
    if (!record) return "record: damaged";  // reported by the archive check
    std::string key = "record: " + std::string(RecordKindName(record->kind));
    auto kind = record->details.find("step_kind");
    if (kind != record->details.end()) key += " " + kind->second;
    auto candidate = record->details.find("candidate_commit");
    if (candidate != record->details.end()) key += " " + candidate->second.substr(0, 10);
    return key;
  }

  std::set<std::string> CacheEntries() const {
    std::set<std::string> entries;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(cache_dir(), ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "entry.json") {
        entries.insert(it->path().parent_path().filename().string().substr(0, 10));
      }
      if (it->path().filename() == "src") it.disable_recursion_pending();
    }
    return entries;
  }

  std::set<std::string> RecordFiles() const {
    std::set<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(records_dir(), ec)) {
      if (entry.path().extension() == ".json" && entry.path().filename().string()[0] != '.') {
        files.insert(entry.path().filename().string());
      }
    }
    return files;
  }

  // What one process did: killed at `kill_point`, or exited with `status`.
  struct Outcome {
    bool killed = false;
    std::string kill_point;
    int exit_code = -1;
    std::string out, err;
  };

  // Runs culprit with `args`; kills it with SIGKILL (the process alone, or its
  // whole process group) at the first kill point not in `used`.
  Outcome RunUntilNewKillPoint(const std::vector<std::string>& args, std::set<std::string>& used,
                               bool kill_group) {
    const fs::path out = dir_.path() / "culprit.out", err = dir_.path() / "culprit.err";
    Outcome outcome;
    std::set<std::string> records = RecordFiles();
    std::set<std::string> entries = CacheEntries();
    std::string state_key = StateKey();
    const long runs_at_start = EngineRuns();
    struct timespec state_mtime {};
    size_t err_seen = 0;

    pid_t pid = SpawnInBackground(Argv(args), out, err, {{"FAULT_RUN_LOG", run_log().string()}});
    if (pid <= 0) throw std::runtime_error("cannot start culprit");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    int status = 0;
    while (true) {
      if (::waitpid(pid, &status, WNOHANG) == pid) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ADD_FAILURE() << "culprit neither finished nor reached a kill point\n" << ReadAll(err);
        break;
      }
      std::vector<std::string> points;
      std::string err_text = ReadAll(err);
      size_t complete = err_text.rfind('\n');
      if (complete != std::string::npos && complete + 1 > err_seen) {
        for (const std::string& line :
             SplitLines(err_text.substr(err_seen, complete + 1 - err_seen))) {
          if (line.rfind("resuming", 0) == 0) continue;  // not a step of the bisect
          points.push_back(KillPointOfLine(line));
        }
        err_seen = complete + 1;
      }
      for (const std::string& file : RecordFiles()) {
        if (records.insert(file).second) points.push_back(KillPointOfRecord(records_dir() / file));
      }
      for (const std::string& entry : CacheEntries()) {
        if (entries.insert(entry).second) points.push_back("build cached: " + entry);
      }
      struct stat st {};
      if (::stat(state_path().c_str(), &st) == 0 &&
          (st.st_mtim.tv_sec != state_mtime.tv_sec || st.st_mtim.tv_nsec != state_mtime.tv_nsec)) {
        state_mtime = st.st_mtim;
        std::string key = StateKey();
        if (!key.empty() && key != state_key) {
          state_key = key;
          points.push_back("state saved: " + key);
        }
      }
      // Inside a sitting: a few engine runs since the last save of the state.
      if (EngineRuns() - runs_at_start >= 3) points.push_back("engine runs after: " + state_key);
      for (const std::string& point : points) {
        if (used.count(point) != 0) continue;
        ::kill(kill_group ? -pid : pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        used.insert(point);
        outcome.killed = true;
        outcome.kill_point = point;
        break;
      }
      if (outcome.killed) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!outcome.killed && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    outcome.out = ReadAll(out);
    outcome.err = ReadAll(err);
    return outcome;
  }

  // After any kill: nothing on disk is damaged or half-written.
  void ExpectWholeOnDisk(const std::string& when) {
    SCOPED_TRACE(when);
    ArchiveCheck archive = CheckArchive(records_dir());
    EXPECT_TRUE(archive.damaged.empty()) << ::testing::PrintToString(archive.damaged);
    if (fs::exists(state_path())) {
      Result<BisectState> state = LoadBisectState(state_path());
      EXPECT_TRUE(state) << state.error().message();
    }
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(cache_dir(), ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "entry.json") continue;
      Result<std::string> text = ReadFile(it->path());
      EXPECT_TRUE(text && nlohmann::json::accept(*text)) << it->path();
    }
  }

  // Kills and resumes until the bisect finishes; returns the culprit it names.
  std::string BisectThroughKills(bool kill_group, std::vector<std::string>& kill_points) {
    std::set<std::string> used;
    std::vector<std::string> args = {"bisect",         "run",   "--good",
                                     commits_.front(), "--bad", commits_.back()};
    for (int process = 0; process < 200; ++process) {
      Outcome outcome = RunUntilNewKillPoint(args, used, kill_group);
      if (!outcome.killed) {
        std::smatch m;
        // CULPRIT, or CHANGE when the check before it did not settle.
        static const std::regex named(R"((?:CULPRIT|CHANGE) ([0-9a-f]{40}))");
        if (outcome.exit_code == 0) {
          EXPECT_TRUE(std::regex_search(outcome.out, m, named)) << outcome.out << outcome.err;
          return m.size() > 1 ? m[1].str() : "";
        }
        // Killed after the state said "done": resume refuses and names the
        // record, which holds the answer.
        EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
        EXPECT_TRUE(Contains(outcome.err, "is finished")) << outcome.err;
        Result<BisectState> state = LoadBisectState(state_path());
        if (!state) return "";
        Result<Record> result = RecordStore(records_dir()).Find(state->result_record);
        return result ? result->details["culprit_commit"] : "";
      }
      kill_points.push_back(outcome.kill_point);
      ExpectWholeOnDisk("after the kill at " + outcome.kill_point);
      // Before the first save of the state there is nothing to resume.
      args = fs::exists(state_path()) ? std::vector<std::string>{"bisect", "resume"} : args;
    }
    ADD_FAILURE() << "200 processes and the bisect is not finished";
    return "";
  }

  // The finished bisect: every step's record is there, linked, and whole;
  // nothing temporary is left in the records, the state or the cache.
  void ExpectCompleteArchive() {
    Result<BisectState> state = LoadBisectState(state_path());
    ASSERT_TRUE(state) << state.error().message();
    EXPECT_EQ(state->status, BisectStatus::kDone);
    RecordStore store(records_dir());
    RecordStore::Listing listing = store.List();
    EXPECT_TRUE(listing.problems.empty());
    ArchiveCheck archive = CheckArchive(records_dir());
    EXPECT_TRUE(archive.damaged.empty()) << ::testing::PrintToString(archive.damaged);
    EXPECT_TRUE(archive.stray.empty()) << ::testing::PrintToString(archive.stray);
    EXPECT_EQ(archive.json_files, static_cast<int>(listing.records.size()));

    Result<Record> result = store.Find(state->result_record);
    ASSERT_TRUE(result) << result.error().message();
    EXPECT_EQ(result->links, state->records);
    for (const std::string& id : state->records) {
      EXPECT_TRUE(store.Find(id)) << "a record the bisect names is missing: " << id;
    }
    for (const BisectStepLog& step : state->log) {
      if (step.pairs > 0) {
        EXPECT_TRUE(store.Find(step.record_id)) << step.step;
      }
    }
    // Every commit the search measured is archived in a step record of this
    // bisect, with at least the pairs the search counted for it (the
    // verification's pairs are in the verify record).
    Result<BisectSearch> search = BisectSearch::FromJson(state->search_json);
    ASSERT_TRUE(search) << search.error().message();
    // "verify " + commit for the verification's pairs.
    std::map<std::string, int> searched, archived;
    for (const Observation& o : search->observations()) {
      searched[(o.verification ? "verify " : "") + state->commits[o.commit]] +=
          static_cast<int>(o.d.size());
    }
    int unlinked = 0;
    std::set<std::string> linked(result->links.begin(), result->links.end());
    for (const Record& step : listing.records) {
      if (step.kind == RecordKind::kBisectStep && step.details.count("bisect_run") &&
          step.details.at("bisect_run") == state->run_id && linked.count(step.id) == 0) {
        ++unlinked;
      }
    }
    // Summed over the steps the state logs, each through the one record it links: the
    // search may measure a commit in two separate steps (how often depends on the noise),
    // while a record left behind by a killed process duplicates a step and is not counted.
    for (const BisectStepLog& logged : state->log) {
      if (logged.pairs == 0 || logged.record_id.empty()) continue;
      Result<Record> step = store.Find(logged.record_id);
      if (!step) continue;  // reported above
      const std::string kind =
          step->details.count("step_kind") ? step->details.at("step_kind") : "";
      // A search step too short for an interval (2 pairs on a quiet host) has no estimate;
      // its record says how many pairs it holds.
      int pairs = step->estimate ? step->estimate->pairs : 0;
      if (!step->estimate && step->details.count("pairs"))
        pairs = std::stoi(step->details.at("pairs"));
      if (pairs == 0) continue;
      std::string commit = kind == "confirm" ? state->commits.back()
                                             : (kind == "verify" ? "verify " : "") +
                                                   step->details.at("candidate_commit");
      archived[commit] += pairs;
    }
    // A step spans several batches, and its record is written when it ends; the state
    // carries the step in flight (BisectPendingStep), so a kill between a save and the
    // record loses none of its pairs, a verification's included.
    for (const auto& [commit, pairs] : searched) {
      EXPECT_GE(archived[commit], pairs)
          << "pairs of " << commit << " the search used but no record holds";
    }
    std::cout << "[fault] records of this bisect not linked from its result: " << unlinked << "\n";

    std::vector<std::string> leftovers = TempLeftovers(records_dir());
    for (const fs::path& dir : {state_dir(), cache_dir()}) {
      std::vector<std::string> more = TempLeftovers(dir);
      leftovers.insert(leftovers.end(), more.begin(), more.end());
    }
    EXPECT_TRUE(leftovers.empty()) << ::testing::PrintToString(leftovers);
    // Every build directory is a finished entry (an unfinished one was redone).
    std::error_code ec;
    for (const fs::path& engine : fs::directory_iterator(cache_dir(), ec)) {
      for (const fs::path& build : fs::directory_iterator(engine / "builds", ec)) {
        EXPECT_TRUE(fs::exists(build / "entry.json")) << build;
      }
    }
  }

  TempDir dir_;
  std::vector<std::string> commits_;
  fs::path config_;
};

TEST_F(FaultBisectKill, EveryKillPointResumesToTheSameCulprit) {
  // The answer without faults first.
  ProcessResult clean = RunCulprit({"--config", config_.string(), "bisect", "run", "--good",
                                    commits_.front(), "--bad", commits_.back()},
                                   dir_.path());
  ASSERT_TRUE(clean.ok()) << DescribeRun(clean);
  ASSERT_TRUE(NamesVerifiedChange(clean.stdout_text, commits_[kCulprit])) << DescribeRun(clean);

  for (bool kill_group : {false, true}) {
    SCOPED_TRACE(kill_group ? "kill -9 of the process group" : "kill -9 of culprit alone");
    // A fresh start: no state, no records, no builds.
    fs::remove_all(state_dir());
    fs::remove_all(records_dir());
    fs::remove_all(cache_dir());
    std::vector<std::string> kill_points;
    std::string named = BisectThroughKills(kill_group, kill_points);
    EXPECT_EQ(named, commits_[kCulprit]);
    ExpectCompleteArchive();
    std::string points;
    for (const std::string& p : kill_points) points += "\n  " + p;
    std::cout << "[fault] " << (kill_group ? "group" : "process")
              << " kills: " << kill_points.size() << ", answer " << named.substr(0, 10)
              << " (expected " << commits_[kCulprit].substr(0, 10) << "), records "
              << CheckArchive(records_dir()).json_files << points << "\n";
    // Which parts of a bisect the kills landed in. The watcher polls, so
    // which points a run reaches depends on the host's timing: they are
    // reported, not required (a test must not fail on a loaded host for
    // being slow). What is required, after every kill, is above: the same
    // answer and a sound archive.
    for (const char* part :
         {"line: confirming the move", "line: culprit: built", "does not build",
          "engine runs after: running:0:0", "record: bisect-step confirm",
          "record: bisect-step measure", "verify", "record: bisect-step verify"}) {
      bool hit = false;
      for (const std::string& p : kill_points) hit = hit || Contains(p, part);
      std::cout << "[fault] kill point '" << part << "': " << (hit ? "reached" : "not reached")
                << "\n";
    }
  }
}

}  // namespace
}  // namespace culprit
