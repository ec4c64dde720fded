#pragma once

// A sitting's live progress that can be handed to a display later: a check measured beside
// the verification runs on a thread of its own (SharedRuns), silent while the verification's
// line is the one shown, and takes the bisect's one live line whenever the bisect waits for it.

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "probes/sitting.h"

namespace culprit {

/// Forwards a sitting's progress to the display it is shown on (ShowOn), or keeps it while it
/// is shown nowhere: the last progress, to show at once when a display is given, and the
/// warnings, which are printed then (a warning is not progress: it is never dropped). The
/// sitting's thread may report while another thread hands the display on.
class HandoverProgress : public SittingProgress {
 public:
  /// Shows the sitting on `display` from now on, starting with its last progress and the
  /// warnings it gave while shown nowhere; null: shown nowhere from now on. `display` must
  /// outlive its use here, and no other thread may use it while it is handed here.
  void ShowOn(SittingProgress* display);

  void OnProgress(int done, int target, std::optional<double> ratio) override;
  void OnPhase(const std::string& phase) override;
  void OnWarning(const std::string& warning) override;

 private:
  struct Progress {
    int done = 0, target = 0;
    std::optional<double> ratio;
  };
  std::mutex mu_;
  SittingProgress* display_ = nullptr;
  std::optional<Progress> last_;
  std::vector<std::string> warnings_;  ///< Given while shown nowhere, not yet printed.
};

}  // namespace culprit
