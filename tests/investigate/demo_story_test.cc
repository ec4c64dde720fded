// The demo's story when the bisect names no verified culprit: which step was left undecided,
// and whether the host is to blame, quoted from the bisect's own report.

#include <gtest/gtest.h>

#include <string>

#include "investigate/demo.h"
#include "tests/support/culprit_cli.h"

namespace culprit {
namespace {

// The bisect's report from a demo run on a drifting 2-core VM (2026-12-07), as it was printed.
constexpr const char* kDriftedBisect =
    "INCONCLUSIVE: the pair budget ran out while verifying 14; 1 commit holds 90% of the model's "
    "posterior\n"
    "  credible set (90%): 65e10aa75e\n"
    "  builds 5 (⌈log2 31⌉ = 5), pairs 519 (the checks' 162 runs shared with verifications "
    "counted once)\n"
    "  to settle it: culprit bisect run --good 9ec778cffa --bad 65e10aa75e -q "
    "series.count.registry  (1 commit, about 1 build); or raise [bisect] max_builds and max_pairs "
    "and run this range again\n"
    "HOST DRIFT: the calibration loop ran +11.0% slower during step 10 (verify of 65e10aa75e): "
    "the host changed speed while it was measured, so its ratios are suspect; re-run on a quiet "
    "host\n";

TEST(DemoStory, AnUndecidedBisectSaysWhichStepAndThatTheHostDrifted) {
  const std::string story =
      UndecidedBisectStory(kDriftedBisect, "2026-12-07T223403Z-bisect-b745", "culprit-demo");
  EXPECT_TRUE(Contains(story, "2. the bisect named no verified culprit on this host")) << story;
  EXPECT_TRUE(Contains(story, "(its record: 2026-12-07T223403Z-bisect-b745)")) << story;
  EXPECT_TRUE(Contains(story, "   INCONCLUSIVE: the pair budget ran out while verifying 14"))
      << story;
  EXPECT_TRUE(Contains(story, "   to settle it: culprit bisect run --good 9ec778cffa")) << story;
  EXPECT_TRUE(Contains(story,
                       "   HOST DRIFT: the calibration loop ran +11.0% slower during step "
                       "10 (verify of 65e10aa75e)"))
      << story;
  EXPECT_TRUE(Contains(story, "the host's own noise left the bisect undecided")) << story;
  EXPECT_TRUE(Contains(story, "`culprit demo --dir culprit-demo` runs the demo again")) << story;
  // The posterior's details stay in the record; the story quotes the verdict, not the model.
  EXPECT_FALSE(Contains(story, "credible set")) << story;
}

TEST(DemoStory, AnUndecidedBisectOnAQuietHostDoesNotBlameTheHost) {
  const std::string story = UndecidedBisectStory(
      "NOT REPRODUCIBLE: the move between v1.0 and v1.3 was not seen again\n"
      "  to settle it: culprit compare v1.0 v1.3\n",
      "r1", "d");
  EXPECT_TRUE(Contains(story, "   NOT REPRODUCIBLE: the move between v1.0 and v1.3")) << story;
  EXPECT_TRUE(Contains(story, "   to settle it: culprit compare v1.0 v1.3")) << story;
  EXPECT_FALSE(Contains(story, "host's own noise")) << story;
  EXPECT_FALSE(Contains(story, "HOST")) << story;
}

}  // namespace
}  // namespace culprit
