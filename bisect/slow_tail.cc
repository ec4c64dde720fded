#include "bisect/slow_tail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "probes/verdict.h"

namespace culprit {

bool MovesInTheTailOnly(const BisectSegment& segment, double band) {
  if (segment.check != SegmentCheck::kSame && segment.check != SegmentCheck::kOpposite) {
    return false;
  }
  if (!(segment.low > 0) || !(segment.high > 0)) return false;
  // The pseudo-median's estimate inside the band, not only its interval short of beyond it: a
  // shift near the band's edge can clear it in the mean before its pseudo-median does, and the
  // search places such a shift.
  const double tau = BandEdge(band);
  return std::fabs(std::log(segment.ratio)) < tau &&
         Classify(std::log(segment.low), std::log(segment.high), tau) != Verdict::kEffect;
}

std::string TailOnlyReason(const BisectSegment& segment, std::string_view mean_ratio, double band) {
  return fmt::format(
      "its move is in the slow tail of its runs, not in the typical run: the pairs' "
      "pseudo-median x{} is not beyond the ±{:g}% band{}; an intermittent "
      "slowdown moves so, and the search, which places a shift of the typical run, cannot place "
      "it, so it was not searched",
      FormatRatioInterval(segment.ratio, segment.low, segment.high), band * 100,
      mean_ratio.empty() ? std::string(", their mean beyond it")
                         : fmt::format(", their mean ratio {} beyond it", mean_ratio));
}

std::string TailTableCommand(const std::vector<std::string>& commits, int lo, int hi,
                             std::string_view query) {
  // The ends and up to three commits between, evenly spaced: where the tail starts lies
  // between the last cell that ties and the first that moves.
  std::vector<int> points = {lo};
  const int inner = std::min(3, hi - lo - 1);
  for (int k = 1; k <= inner; ++k) points.push_back(lo + (hi - lo) * k / (inner + 1));
  points.push_back(hi);
  std::string revs;
  for (int p : points) revs += " --rev " + ShortCommit(commits[p]);
  return fmt::format("culprit table{}{}", revs,
                     query.empty() ? std::string() : fmt::format(" -q {}", query));
}

}  // namespace culprit
