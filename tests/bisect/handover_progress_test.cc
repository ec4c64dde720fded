#include "bisect/handover_progress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

// What a display was shown, in order.
class DisplayRecorder : public SittingProgress {
 public:
  void OnProgress(int done, int target, std::optional<double> ratio) override {
    shown.push_back(std::to_string(done) + "/" + std::to_string(target) +
                    (ratio ? " " + std::to_string(*ratio).substr(0, 4) : ""));
  }
  void OnPhase(const std::string& phase) override { shown.push_back("phase " + phase); }
  void OnWarning(const std::string& warning) override { shown.push_back("warning " + warning); }
  std::vector<std::string> shown;
};

TEST(HandoverProgress, ShowsNothingUntilGivenADisplayThenStartsFromWhereTheSittingStands) {
  HandoverProgress progress;
  progress.OnWarning("the host's load is at its core count");
  progress.OnPhase("warm-up");
  progress.OnProgress(10, 40, std::nullopt);
  progress.OnProgress(12, 40, 1.02);
  DisplayRecorder display;
  progress.ShowOn(&display);
  // The warning given while shown nowhere is printed, the phase long over is not, and the
  // line starts at the last progress.
  EXPECT_EQ(display.shown, (std::vector<std::string>{"warning the host's load is at its core count",
                                                     "12/40 1.02"}));
  progress.OnProgress(14, 40, 1.01);
  progress.OnPhase("calibration");
  EXPECT_EQ(display.shown.size(), 4u);
  EXPECT_EQ(display.shown[2], "14/40 1.01");
  EXPECT_EQ(display.shown[3], "phase calibration");
  // Handed back: nothing more reaches that display, and a warning waits for the next one.
  progress.ShowOn(nullptr);
  progress.OnProgress(16, 40, 1.00);
  progress.OnWarning("the calibration drifted");
  EXPECT_EQ(display.shown.size(), 4u);
  DisplayRecorder next;
  progress.ShowOn(&next);
  EXPECT_EQ(next.shown,
            (std::vector<std::string>{"warning the calibration drifted", "16/40 1.00"}));
}

TEST(HandoverProgress, ASittingWithNoProgressYetShowsNothing) {
  HandoverProgress progress;
  DisplayRecorder display;
  progress.ShowOn(&display);
  EXPECT_TRUE(display.shown.empty());
}

}  // namespace
}  // namespace culprit
