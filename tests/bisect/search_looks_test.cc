// Looks of the search's sequential tests: a batch cut short by a budget never re-tests a
// look's α on more pairs than that look had.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bisect/search.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

TEST(SearchLooks, PairsPastALookWaitForTheNextLookInsteadOfRetestingIt) {
  const int n = 50;
  BisectSearch search(n);
  const Action first = search.Next();
  ASSERT_EQ(first.kind, Action::Kind::kMeasure);
  const int look = first.pairs;  // the first look's pairs
  // The first look's pairs are undecided: all but two far beyond the band, and those two
  // keep the interval's low end (its second-lowest Walsh average) inside it.
  std::vector<double> d = {-0.05, -0.04};
  d.resize(look, 0.2);
  search.AddObservation(n, d);
  const Action second = search.Next();
  ASSERT_EQ(second.kind, Action::Kind::kMeasure);
  ASSERT_GT(second.pairs, 0);
  // A driver whose budget cut the batch short: a few pairs, all far beyond the band. On every
  // pair so far the first look's α would now call the endpoints a move; the look is spent on
  // its own pairs, so nothing is decided until the next look is reached.
  const int extra = second.pairs - 1;
  ASSERT_GT(extra, 0);
  search.AddObservation(n, std::vector<double>(extra, 0.2));
  std::vector<double> all = d;
  all.insert(all.end(), extra, 0.2);
  // On all of them even a 99.95% interval is beyond the band: re-testing would have decided.
  Result<ShiftEstimate> retest = SignedRankEstimate(all, 0.9995);
  ASSERT_TRUE(retest);
  ASSERT_GT(retest->low, BandEdge(0.05));
  const Action third = search.Next();
  EXPECT_EQ(third.kind, Action::Kind::kMeasure);
  EXPECT_EQ(third.commit, n);
  EXPECT_EQ(third.baseline, 0);
  EXPECT_EQ(third.pairs, second.pairs - extra);  // the rest of the way to the next look
  EXPECT_EQ(search.Result().kind, SearchOutcome::Kind::kInProgress);
}

}  // namespace
}  // namespace culprit
