#include "bisect/handover_progress.h"

namespace culprit {

void HandoverProgress::ShowOn(SittingProgress* display) {
  std::lock_guard<std::mutex> lock(mu_);
  display_ = display;
  if (display_ == nullptr) return;
  for (const std::string& warning : warnings_) display_->OnWarning(warning);
  warnings_.clear();
  if (last_) display_->OnProgress(last_->done, last_->target, last_->ratio);
}

void HandoverProgress::OnProgress(int done, int target, std::optional<double> ratio) {
  std::lock_guard<std::mutex> lock(mu_);
  last_ = Progress{done, target, ratio};
  if (display_) display_->OnProgress(done, target, ratio);
}

void HandoverProgress::OnPhase(const std::string& phase) {
  // A phase explains a pause of the line it is on; one passed while shown nowhere is over
  // by the time the sitting is shown.
  std::lock_guard<std::mutex> lock(mu_);
  if (display_) display_->OnPhase(phase);
}

void HandoverProgress::OnWarning(const std::string& warning) {
  std::lock_guard<std::mutex> lock(mu_);
  if (display_) {
    display_->OnWarning(warning);
  } else {
    warnings_.push_back(warning);
  }
}

}  // namespace culprit
