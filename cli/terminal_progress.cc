#include "cli/terminal_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace culprit {

TerminalProgress::TerminalProgress(std::string label)
    : label_(std::move(label)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

TerminalProgress::~TerminalProgress() { Finish(); }

void TerminalProgress::Show(const std::string& text) {
  if (!enabled_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = fmt::format("{}  {}  [{:.0f}s]", label_, text, elapsed);
  if (line.size() > 110) line.resize(110);
  fmt::print(stderr, "\r\x1b[2K{}", line);
  std::fflush(stderr);
  dirty_ = true;
}

void TerminalProgress::OnProgress(int done, int target, std::optional<double> ratio) {
  std::string estimate = ratio ? fmt::format("ratio {:.3f}", *ratio) : "estimating";
  Show(fmt::format("{}/{} pairs  {}", done, target, estimate));
}

void TerminalProgress::OnPhase(const std::string& phase) { Show(phase); }

void TerminalProgress::OnWarning(const std::string& warning) {
  Finish();  // the live line, if any, is cleared first and comes back with the next update
  fmt::print(stderr, "culprit: warning: {}\n", warning);
  std::fflush(stderr);
}

void TerminalProgress::Restart(std::string label) {
  Finish();
  label_ = std::move(label);
  start_ = std::chrono::steady_clock::now();
}

void TerminalProgress::Finish() {
  if (enabled_ && dirty_) {
    fmt::print(stderr, "\r\x1b[2K");
    std::fflush(stderr);
    dirty_ = false;
  }
}

}  // namespace culprit
