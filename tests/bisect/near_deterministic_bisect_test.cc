// The real bisect (BisectRunner) on a scripted world whose query's metric is instructions
// (issue 28 §2): counts that repeat are searched in 2 pairs a step and verified in 4 by the
// near-deterministic rule, its step records say so, and every commit the search measured ran
// twice; counts that spread are verified by the sequential looks; the same world timed keeps
// the timed metric's floor. SimulatedEngine (simulation/) draws the runs, seeded.
// Runs re-used across steps (bisect/run_reuse.h): counts that repeat run at most 4 times per
// commit in the whole bisect, each record saying which runs it re-used and from which step;
// counts that spread and timed metrics re-use nothing; a resumed bisect keeps what it kept.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_state.h"
#include "engine/metric.h"
#include "simulation/simulated_bisect.h"
#include "simulation/simulation.h"

namespace culprit {
namespace {

class QuietReporter : public BisectReporter {
 public:
  void Line(const std::string& text) override { lines += text + "\n"; }
  std::string lines;
};

struct Bisected {
  BisectReport report;
  int first_bad = 0;
  std::vector<nlohmann::json> steps;  ///< The bisect-step records.
  /// Measured runs (warm-ups left out) per commit index, over every step record.
  std::map<int, int> runs;
  /// The same without the runs a record re-used (its details' reused_samples): the runs the
  /// query really made of each commit.
  std::map<int, int> fresh;
  int reused = 0;     ///< Runs re-used, over every record.
  std::string lines;  ///< What the reporter was told.
};

// The records' samples under `dir`, counted into `b` (runs, fresh, reused, steps).
void ReadRecords(const std::filesystem::path& dir, const SimulatedEngine& engine, Bisected& b) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "records")) {
    if (entry.path().filename().string().find("bisect-step") == std::string::npos) continue;
    std::ifstream in(entry.path());
    nlohmann::json record = nlohmann::json::parse(in);
    std::vector<int> reused;
    std::stringstream list(record["details"].value("reused_samples", ""));
    for (std::string part; std::getline(list, part, ',');) reused.push_back(std::stoi(part));
    for (const nlohmann::json& s : record["samples"]) {
      if (s.value("warmup", false)) continue;
      const std::string commit = record["arms"][s["arm"].get<int>()]["commit"];
      std::optional<int> index = engine.IndexOf(commit);
      if (!index) continue;
      ++b.runs[*index];
      if (std::find(reused.begin(), reused.end(), s["sequence"].get<int>()) == reused.end()) {
        ++b.fresh[*index];
      } else {
        ++b.reused;
      }
    }
    b.steps.push_back(std::move(record));
  }
}

// One bisect of a 48-commit world with one change of `effect` (x1.038: lua's, docs/bisect.md)
// whose runs spread by `sigma` (log scale), with `metric` and --band 0.02, records read.
// With `interrupt_at` > 0, Ctrl-C comes at the start of that sitting or batch (1 = the
// confirmation) and the bisect is resumed by a new runner, as `culprit bisect resume` does.
Bisected BisectCounts(double sigma, MetricRule::Kind metric, const std::string& name,
                      double effect = 0.038, int interrupt_at = 0) {
  WorldOptions w;
  w.n_commits = 48;
  w.sigma = sigma;
  w.drift_step = 0;
  w.outlier_rate = 0;
  w.changes = {SimChange{effect}};
  SimWorld world(w, 11);
  SimulatedEngine engine(world);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("culprit-near-det-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  BisectSections config = SimulatedBisectConfig(dir);
  config.queries["q"].metric.kind = metric;
  QuietReporter reporter;
  BisectRunner runner(config, {engine, engine, engine}, /*host=*/nullptr, reporter);
  BisectRequest request;
  request.good = "good";
  request.bad = "bad";
  request.query = "q";
  request.flags.seed = 5;
  request.flags.band = 0.02;
  if (interrupt_at > 0) {
    engine.OnPair([interrupt_at](int n) {
      if (n == interrupt_at) SetInterruptRequested(true);
    });
  }
  Result<BisectReport> report = runner.Run(request);
  Bisected b;
  if (interrupt_at > 0) {
    SetInterruptRequested(false);
    EXPECT_FALSE(report.ok());
    if (!report.ok()) {
      EXPECT_EQ(report.error().kind(), ErrorKind::kInterrupted);
    }
    Result<BisectState> saved = LoadBisectState(BisectStatePath(config));
    EXPECT_TRUE(saved.ok());
    // What the interrupted process kept for re-use is in the state.
    if (saved.ok()) {
      EXPECT_NE(saved->run_reuse_json, "");
    }
    b.lines = reporter.lines + "-- resumed --\n";
    reporter.lines.clear();
    BisectRunner resumed(config, {engine, engine, engine}, /*host=*/nullptr, reporter);
    report = resumed.Resume();
  }
  b.first_bad = world.first_bad();
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message());
  if (report.ok()) b.report = *report;
  ReadRecords(dir, engine, b);
  b.lines += reporter.lines;
  std::filesystem::remove_all(dir);
  return b;
}

// The pairs of the state's log entries of `kind`.
std::vector<int> PairsOf(const Bisected& b, BisectStepKind kind) {
  std::vector<int> pairs;
  for (const BisectStepLog& l : b.report.state.log) {
    if (l.kind == kind) pairs.push_back(l.pairs);
  }
  return pairs;
}

// The named change's commit index, or -1.
int Named(const Bisected& b) {
  for (const BisectSegment& s : b.report.state.segments) {
    if (s.outcome == SegmentOutcome::kChange) return s.change;
  }
  return -1;
}

const nlohmann::json* VerifyRecord(const Bisected& b) {
  for (const nlohmann::json& r : b.steps) {
    if (r["details"].value("step_kind", "") == "verify") return &r;
  }
  return nullptr;
}

TEST(InstructionsBisect, CountsThatRepeatAreSearchedInTwoPairsAStepAndVerifiedInFour) {
  // 0.0004% per run, as cachegrind's counts of a real program repeat (docs/statistics.md).
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kInstructions, "repeat");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  const std::vector<int> measures = PairsOf(b, BisectStepKind::kMeasure);
  ASSERT_FALSE(measures.empty());
  for (int pairs : measures) EXPECT_EQ(pairs, 2);
  EXPECT_LE(measures.size(), 6u + 1);  // ceil(log2 48) steps, one batch each
  EXPECT_EQ(PairsOf(b, BisectStepKind::kVerify), std::vector<int>{4});
  EXPECT_EQ(PairsOf(b, BisectStepKind::kConfirm), std::vector<int>{4});
  for (int pairs : PairsOf(b, BisectStepKind::kCheck)) EXPECT_EQ(pairs, 4);
  const nlohmann::json* verify = VerifyRecord(b);
  ASSERT_NE(verify, nullptr);
  EXPECT_EQ((*verify)["details"].value("decided_by", ""), "near-deterministic rule");
  EXPECT_EQ((*verify)["estimate"].value("method", ""),
            "range of the runs' ratios (near-deterministic)");
  // The rule's range is the runs' observed range, not a coverage interval: the report and the
  // step record say so, and no confidence is printed for it.
  // Its arms re-use the search's runs (run_reuse.h), so its pairs are not called fresh.
  EXPECT_NE(b.report.text.find("the runs' observed range (near-deterministic rule) (4 pairs, "
                               "re-using A "),
            std::string::npos)
      << b.report.text;
  EXPECT_EQ(b.report.text.find("fresh pairs"), std::string::npos) << b.report.text;
  EXPECT_EQ(b.report.text.find("99.9999"), std::string::npos) << b.report.text;
  EXPECT_NE((*verify)["notes"].dump().find("the observed range of every ratio of this step's runs"),
            std::string::npos)
      << (*verify)["notes"].dump();
  // Every commit only the search measured ran twice; the culprit and its parent each ran in
  // the verification (4) and a check (4) besides their search step, if any (2).
  for (const auto& [commit, runs] : b.runs) {
    if (commit == 0 || commit == 48) continue;
    if (commit == b.first_bad || commit == b.first_bad - 1) {
      EXPECT_LE(runs, 2 + 4 + 4) << "commit " << commit;
    } else {
      EXPECT_EQ(runs, 2) << "commit " << commit;
    }
  }
}

TEST(InstructionsBisect, ASpeedUpIsVerifiedByTheRuleTheWayTheRangeMoves) {
  // x0.96: the search sees the flipped ratios, and the verification's runs flipped with them
  // (a rule over unflipped runs would call the change a move the other way and refute it).
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kInstructions, "faster", -0.04);
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  EXPECT_TRUE(b.report.state.speedup);
  EXPECT_EQ(PairsOf(b, BisectStepKind::kVerify), std::vector<int>{4});
  const nlohmann::json* verify = VerifyRecord(b);
  ASSERT_NE(verify, nullptr);
  EXPECT_EQ((*verify)["details"].value("decided_by", ""), "near-deterministic rule");
  // The record's range as measured: the candidate against its parent, below 1.
  EXPECT_NEAR((*verify)["estimate"].value("ratio", 0.0), 0.96, 0.001);
}

TEST(InstructionsBisect, CountsThatSpreadAreVerifiedByTheSequentialLooks) {
  // 1% per run: more than the rule's 0.1%, so the sequential looks decide, as on wall time.
  const Bisected b = BisectCounts(0.01, MetricRule::Kind::kInstructions, "spread");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  int verify_pairs = 0;
  for (int pairs : PairsOf(b, BisectStepKind::kVerify)) verify_pairs += pairs;
  EXPECT_GE(verify_pairs, 6);  // the first planned look (kPlannedFloorLookShare), past the rule's 4
  const nlohmann::json* verify = VerifyRecord(b);
  ASSERT_NE(verify, nullptr);
  EXPECT_FALSE((*verify)["details"].contains("decided_by"));
  EXPECT_EQ((*verify)["details"]
                .value("near_deterministic", "")
                .rfind("the near-deterministic rule did not decide", 0),
            0u);
}

TEST(InstructionsBisect, TheSameRunsTimedKeepTheTimedFloor) {
  // Wall time whose runs repeat as exactly (quantised or scripted timings): the 2% floor
  // sizes the steps (4 pairs at x1.038) and no rule reads the verification.
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kWall, "timed");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  for (int pairs : PairsOf(b, BisectStepKind::kMeasure)) EXPECT_GE(pairs, 4);
  int verify_pairs = 0;
  for (int pairs : PairsOf(b, BisectStepKind::kVerify)) verify_pairs += pairs;
  EXPECT_GE(verify_pairs, 8);
  const nlohmann::json* verify = VerifyRecord(b);
  ASSERT_NE(verify, nullptr);
  EXPECT_FALSE((*verify)["details"].contains("decided_by"));
  EXPECT_FALSE((*verify)["details"].contains("near_deterministic"));
}

// The largest number of runs the query made of one commit, over the whole bisect.
int MostFreshRuns(const Bisected& b) {
  int most = 0;
  for (const auto& [commit, runs] : b.fresh) most = std::max(most, runs);
  return most;
}

TEST(InstructionsBisect, CountsThatRepeatRunNoCommitMoreThanFourTimesInTheWholeBisect) {
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kInstructions, "reuse");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  // The same pairs as before re-use: steps of 2, a verification and a confirmation of 4.
  for (int pairs : PairsOf(b, BisectStepKind::kMeasure)) EXPECT_EQ(pairs, 2);
  EXPECT_EQ(PairsOf(b, BisectStepKind::kVerify), std::vector<int>{4});
  EXPECT_EQ(PairsOf(b, BisectStepKind::kConfirm), std::vector<int>{4});
  // Every commit the query ran, the ends, the culprit and its parent included: at most 4.
  ASSERT_FALSE(b.fresh.empty());
  EXPECT_EQ(b.fresh.at(0), 4);
  EXPECT_EQ(b.fresh.at(48), 4);
  EXPECT_LE(MostFreshRuns(b), 4);
  for (const auto& [commit, runs] : b.fresh) EXPECT_LE(runs, 4) << "commit " << commit;
  EXPECT_GT(b.reused, 0);
  // Each step record says what it re-used and from which step; the good end's runs are the
  // confirmation's (step 1) in every search step.
  int search_steps = 0;
  for (const nlohmann::json& r : b.steps) {
    const nlohmann::json& d = r["details"];
    if (d.value("step_kind", "") == "confirm") {
      EXPECT_FALSE(d.contains("reused_runs")) << d.dump();
      continue;
    }
    if (d.value("step_kind", "") != "measure") continue;
    ++search_steps;
    EXPECT_EQ(d.value("reused_runs_a", ""), "2") << d.dump();
    EXPECT_EQ(d.value("reused_runs_b", ""), "0") << d.dump();
    EXPECT_NE(d.value("reused_runs", "").find("2 runs of step 1"), std::string::npos) << d.dump();
  }
  EXPECT_GT(search_steps, 0);
  EXPECT_NE(b.lines.find("re-used 2 runs of " + SimulatedEngine::Id(0).substr(0, 10) +
                         " from step 1 (not run again)"),
            std::string::npos)
      << b.lines;
  // The report says so, and what the verification re-used (its record notes it too).
  EXPECT_NE(b.report.text.find("runs re-used from earlier steps: "), std::string::npos)
      << b.report.text;
  EXPECT_NE(b.report.text.find("the verification of " +
                               SimulatedEngine::Id(b.first_bad).substr(0, 10) + " re-used A "),
            std::string::npos)
      << b.report.text;
  const nlohmann::json* verify = VerifyRecord(b);
  ASSERT_NE(verify, nullptr);
  EXPECT_NE((*verify)["notes"].dump().find("runs of earlier steps, not run again"),
            std::string::npos)
      << (*verify)["notes"].dump();
  // The checks measured nothing of their own: both ends' runs were there.
  for (const nlohmann::json& r : b.steps) {
    const nlohmann::json& d = r["details"];
    if (d.value("step_kind", "") != "check") continue;
    EXPECT_EQ(d.value("reused_runs_a", ""), "4") << d.dump();
    EXPECT_EQ(d.value("reused_runs_b", ""), "4") << d.dump();
  }
}

TEST(InstructionsBisect, CountsThatSpreadReuseNothing) {
  // 1% per run: no commit's runs repeat within 0.1%, so every step measures its own pairs.
  const Bisected b = BisectCounts(0.01, MetricRule::Kind::kInstructions, "spread-fresh");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  EXPECT_EQ(b.reused, 0);
  EXPECT_EQ(b.runs, b.fresh);
  for (const nlohmann::json& r : b.steps) {
    EXPECT_FALSE(r["details"].contains("reused_runs")) << r["details"].dump();
  }
  EXPECT_EQ(b.lines.find("re-used"), std::string::npos) << b.lines;
}

TEST(InstructionsBisect, ATimedBisectReusesNothing) {
  // Wall time that repeats as exactly as a count: still every sitting's own runs.
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kWall, "timed-fresh");
  ASSERT_EQ(Named(b), b.first_bad) << b.report.text;
  EXPECT_EQ(b.reused, 0);
  EXPECT_EQ(b.runs, b.fresh);
  EXPECT_GT(b.fresh.at(0), 4);
  for (const nlohmann::json& r : b.steps) {
    EXPECT_FALSE(r["details"].contains("reused_runs")) << r["details"].dump();
  }
  EXPECT_EQ(b.lines.find("re-used"), std::string::npos) << b.lines;
  EXPECT_EQ(b.report.state.run_reuse_json, "");
  EXPECT_EQ(b.report.text.find("re-used"), std::string::npos) << b.report.text;
}

TEST(InstructionsBisect, AResumedBisectReusesWhatItKeptBeforeTheInterruption) {
  // Ctrl-C at the third search batch (the confirmation is sitting 1); the resumed process
  // re-uses the confirmation's runs of the good end, kept in the state, as the first did.
  const Bisected b = BisectCounts(4e-6, MetricRule::Kind::kInstructions, "resume", 0.038,
                                  /*interrupt_at=*/4);
  ASSERT_EQ(Named(b), b.first_bad) << b.lines << b.report.text;
  EXPECT_LE(MostFreshRuns(b), 4) << b.lines;
  for (const auto& [commit, runs] : b.fresh) EXPECT_LE(runs, 4) << "commit " << commit;
  const size_t resumed = b.lines.find("-- resumed --");
  ASSERT_NE(resumed, std::string::npos);
  EXPECT_NE(
      b.lines.find("re-used 2 runs of " + SimulatedEngine::Id(0).substr(0, 10) + " from step 1",
                   resumed),
      std::string::npos)
      << b.lines;
}

}  // namespace
}  // namespace culprit
