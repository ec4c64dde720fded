#pragma once

// Progress on stderr, only when stderr is a terminal: one line rewritten in
// place. Piped or redirected output stays quiet, so logs hold results only.

#include <chrono>
#include <string>

#include "probes/sitting.h"

namespace culprit {

class TerminalProgress : public SittingProgress {
 public:
  /// `label` prefixes every line, e.g. "series.count default vs PARALLEL=1".
  explicit TerminalProgress(std::string label);
  ~TerminalProgress() override;

  void OnProgress(int done, int target, std::optional<double> ratio) override;
  void OnPhase(const std::string& phase) override;
  /// Printed whether or not stderr is a terminal: a warning is not progress.
  void OnWarning(const std::string& warning) override;

  /// Clears the progress line (before printing results).
  void Finish();
  /// Clears the line and starts again with another label and its own clock: one object
  /// for the many sittings of a bisect.
  void Restart(std::string label);
  bool enabled() const { return enabled_; }

 private:
  void Show(const std::string& text);

  std::string label_;
  bool enabled_;
  bool dirty_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace culprit
