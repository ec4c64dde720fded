#include "probes/shared_runs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "probes/sitting.h"

namespace culprit {
namespace {

// The runs of the builds: every run is logged (which build, in order), its value says which
// build and which of that build's runs it was (build * 1000 + run), and a run that starts
// while another is going fails the test.
struct Host {
  std::vector<int> runs;
  std::map<int, int> count;
  std::atomic<bool> busy{false};
};

class BuildsSource : public SampleSource {
 public:
  BuildsSource(Host& host, int a, int b) : host_(host), builds_{a, b} {}
  SampleOutcome Run(int arm) override {
    EXPECT_FALSE(host_.busy.exchange(true)) << "two runs at once";
    const int build = builds_[arm];
    host_.runs.push_back(build);
    SampleOutcome out;
    out.ok = true;
    out.value = build * 1000 + ++host_.count[build];
    host_.busy = false;
    return out;
  }

 private:
  Host& host_;
  int builds_[2];
};

SittingOptions Fixed(int pairs) {
  SittingOptions options;
  options.warmup = 1;
  options.min_pairs = options.max_pairs = pairs;
  options.seed = 7;
  return options;
}

// The build each of a sitting's samples ran, read back from its value.
std::vector<int> BuildsOf(const SittingResult& r, int arm) {
  std::vector<int> out;
  for (const Sample& s : r.samples) {
    if (s.arm == arm) out.push_back(static_cast<int>(s.value) / 1000);
  }
  return out;
}

struct Bisect {
  Host host;
  SittingResult verification, before, after;
  int shared_before = 0, shared_after = 0;
};

// The bisect's pattern: participant 0 verifies C (2) against its parent P (1) while the
// part before checks P against G (0) and the part after B (3) against C.
void RunThree(Bisect& b, int verify_pairs, int before_pairs, int after_pairs) {
  SharedRuns shared;
  BuildsSource g_p(b.host, 0, 1), c_b(b.host, 2, 3), p_c(b.host, 1, 2);
  const int before = shared.Add(0, 1), after = shared.Add(2, 3);
  shared.Start(before, [&] {
    std::unique_ptr<SampleSource> source = shared.Source(before, g_p);
    b.before = RunPairedSitting(*source, nullptr, Fixed(before_pairs), nullptr);
  });
  shared.Start(after, [&] {
    std::unique_ptr<SampleSource> source = shared.Source(after, c_b);
    b.after = RunPairedSitting(*source, nullptr, Fixed(after_pairs), nullptr);
  });
  shared.SetBuilds(0, 1, 2);
  {
    std::unique_ptr<SampleSource> source = shared.Source(0, p_c);
    b.verification = RunPairedSitting(*source, nullptr, Fixed(verify_pairs), nullptr);
  }
  shared.SetBuilds(0, -1, -1);
  shared.WaitUntilDone(before);
  shared.WaitUntilDone(after);
  EXPECT_TRUE(shared.Done(before));
  EXPECT_TRUE(shared.Done(after));
  b.shared_before = shared.SharedRunsOf(before);
  b.shared_after = shared.SharedRunsOf(after);
}

TEST(SharedRuns, ARunOfABuildTwoSittingsHaveServesBothAndNothingRunsAtOnce) {
  Bisect b;
  RunThree(b, 20, 20, 20);
  // Each sitting got runs of its own builds, all it asked for.
  EXPECT_EQ(b.verification.pairs_kept, 20);
  EXPECT_EQ(b.before.pairs_kept, 20);
  EXPECT_EQ(b.after.pairs_kept, 20);
  EXPECT_EQ(BuildsOf(b.before, 0), std::vector<int>(21, 0));
  EXPECT_EQ(BuildsOf(b.before, 1), std::vector<int>(21, 1));
  EXPECT_EQ(BuildsOf(b.after, 0), std::vector<int>(21, 2));
  EXPECT_EQ(BuildsOf(b.after, 1), std::vector<int>(21, 3));
  // P's and C's runs were taken once for two sittings: four builds, 21 runs each (a warm-up
  // and 20 pairs), not six arms of 21.
  EXPECT_EQ(b.host.runs.size(), 4u * 21);
  EXPECT_EQ(b.shared_before, 21);
  EXPECT_EQ(b.shared_after, 21);
  // The very same runs: the check's P is the verification's P, run for run.
  std::vector<double> p_check, p_verify;
  for (const Sample& s : b.before.samples) {
    if (s.arm == 1) p_check.push_back(s.value);
  }
  for (const Sample& s : b.verification.samples) {
    if (s.arm == 0) p_verify.push_back(s.value);
  }
  EXPECT_EQ(p_check, p_verify);
}

TEST(SharedRuns, ASittingThatEndsLeavesTheOthersToGoOnAlone) {
  Bisect b;
  RunThree(b, /*verify_pairs=*/6, /*before_pairs=*/30, /*after_pairs=*/2);
  EXPECT_EQ(b.verification.pairs_kept, 6);
  EXPECT_EQ(b.before.pairs_kept, 30);
  EXPECT_EQ(b.after.pairs_kept, 2);
  // The check before shared P's first 7 runs (a warm-up and 6 pairs) and took the rest alone;
  // the check after shared C's 3 (a warm-up and 2 pairs), and the verification took its
  // other 4 runs of C alone.
  EXPECT_EQ(b.shared_before, 7);
  EXPECT_EQ(b.shared_after, 3);
  const auto count = [&](int build) {
    return static_cast<int>(std::count(b.host.runs.begin(), b.host.runs.end(), build));
  };
  EXPECT_EQ(count(0), 31);
  EXPECT_EQ(count(1), 31);
  EXPECT_EQ(count(2), 7);
  EXPECT_EQ(count(3), 3);
}

TEST(SharedRuns, TheOrderOfEveryRunIsTheSameEveryTime) {
  Bisect first, second;
  RunThree(first, 12, 20, 8);
  RunThree(second, 12, 20, 8);
  EXPECT_EQ(first.host.runs, second.host.runs);
  EXPECT_EQ(first.before.log_ratios, second.before.log_ratios);
  EXPECT_EQ(first.after.log_ratios, second.after.log_ratios);
}

TEST(SharedRuns, ACancelledSittingStopsAsInterruptedAndItsRunsAreKept) {
  Host host;
  SittingResult check, verification;
  {
    SharedRuns shared;
    BuildsSource g_p(host, 0, 1), p_c(host, 1, 2);
    const int id = shared.Add(0, 1);
    SittingOptions options = Fixed(40);
    options.stop_requested = [&] { return shared.CancelRequested(id); };
    shared.Start(id, [&] {
      std::unique_ptr<SampleSource> source = shared.Source(id, g_p);
      check = RunPairedSitting(*source, nullptr, options, nullptr);
    });
    shared.SetBuilds(0, 1, 2);
    std::unique_ptr<SampleSource> source = shared.Source(0, p_c);
    verification = RunPairedSitting(*source, nullptr, Fixed(4), nullptr);
    shared.SetBuilds(0, -1, -1);
    shared.Cancel(id);
    shared.WaitUntilDone(id);
  }
  EXPECT_TRUE(check.interrupted);
  EXPECT_LT(check.pairs_kept, 40);
  EXPECT_GE(check.pairs_kept, 4);
  // Every run it took is in its samples, the runs after the verification's end too.
  int runs_of_g = 0;
  for (int build : host.runs) runs_of_g += build == 0;
  EXPECT_EQ(static_cast<int>(BuildsOf(check, 0).size()), runs_of_g);
}

TEST(SharedRuns, ParticipantsNeverStartedOrGoneDoNotHoldTheOthersUp) {
  Host host;
  SharedRuns shared;
  shared.Add(1, 2);  // added, never started: its builds wait for nothing
  BuildsSource p_c(host, 1, 2);
  shared.SetBuilds(0, 1, 2);
  std::unique_ptr<SampleSource> source = shared.Source(0, p_c);
  const SittingResult r = RunPairedSitting(*source, nullptr, Fixed(4), nullptr);
  EXPECT_EQ(r.pairs_kept, 4);
  EXPECT_EQ(host.runs.size(), 10u);
}

}  // namespace
}  // namespace culprit
