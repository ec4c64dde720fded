#include "probes/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

namespace culprit {
namespace {

// All Walsh averages (d_i + d_j) / 2, i <= j, sorted: the brute-force reference.
std::vector<double> SortedWalsh(const std::vector<double>& d) {
  std::vector<double> w;
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) w.push_back((d[i] + d[j]) / 2);
  }
  std::sort(w.begin(), w.end());
  return w;
}

double SortedMedian(const std::vector<double>& sorted) {
  size_t m = sorted.size();
  return m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
}

// P(W+ = w) by enumerating all 2^n sign patterns, independently of the DP.
std::vector<double> BruteForceSignedRank(size_t n) {
  std::vector<double> counts(n * (n + 1) / 2 + 1, 0);
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    size_t w = 0;
    for (size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) w += i + 1;
    }
    counts[w] += 1;
  }
  for (double& c : counts) c /= static_cast<double>(1u << n);
  return counts;
}

TEST(NormalDistribution, KnownValues) {
  EXPECT_DOUBLE_EQ(NormalCdf(0), 0.5);
  EXPECT_NEAR(NormalCdf(1.959963984540054), 0.975, 1e-15);
  EXPECT_NEAR(NormalCdf(-1), 0.15865525393145707, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.8), 0.8416212335729143, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-10);
  EXPECT_EQ(NormalQuantile(0), -INFINITY);
  EXPECT_EQ(NormalQuantile(1), INFINITY);
  for (double p : {1e-15, 1e-6, 0.01, 0.02425, 0.3, 0.7, 0.9, 0.99999}) {
    EXPECT_NEAR(NormalCdf(NormalQuantile(p)) / p, 1.0, 1e-12) << p;
  }
}

TEST(Descriptive, MedianQuantileMad) {
  std::vector<double> odd = {3, 1, 2};
  std::vector<double> even = {4, 1, 3, 2};
  EXPECT_EQ(Median(odd), 2);
  EXPECT_EQ(Median(even), 2.5);
  EXPECT_EQ(Median(std::vector<double>{7}), 7);
  EXPECT_DOUBLE_EQ(Quantile(even, 0.25), 1.75);  // h = 3 * 0.25: 1 + 0.75 * (2 - 1)
  EXPECT_DOUBLE_EQ(Quantile(even, 0.5), 2.5);
  EXPECT_EQ(Quantile(even, 0), 1);
  EXPECT_EQ(Quantile(even, 1), 4);
  EXPECT_DOUBLE_EQ(Quantile(std::vector<double>{10, 20}, 0.9), 19);
  // Median 2; deviations {1, 1, 0, 0, 2, 4, 7}; their median 1.
  std::vector<double> mad = {1, 1, 2, 2, 4, 6, 9};
  EXPECT_EQ(MedianAbsoluteDeviation(mad), 1);
}

TEST(SignedRankDistribution, MatchesEnumeration) {
  for (size_t n = 1; n <= 14; ++n) {
    std::vector<double> dp = SignedRankNullDistribution(n);
    std::vector<double> brute = BruteForceSignedRank(n);
    ASSERT_EQ(dp.size(), brute.size()) << n;
    for (size_t w = 0; w < dp.size(); ++w) EXPECT_NEAR(dp[w], brute[w], 1e-15) << n << " " << w;
  }
}

TEST(SignedRankDistribution, ReproducesWilcoxonTableCriticalValues) {
  // Published two-sided critical values T (reject when W <= T), alpha 0.05 and 0.01. The
  // interval's order statistic is k = T + 1.
  std::map<size_t, size_t> t05 = {{6, 0},   {7, 2},   {8, 3},   {9, 5},   {10, 8},  {11, 10},
                                  {12, 13}, {13, 17}, {14, 21}, {15, 25}, {16, 29}, {17, 34},
                                  {18, 40}, {19, 46}, {20, 52}, {25, 89}, {30, 137}};
  for (auto [n, t] : t05) {
    RankInterval r = SignedRankOrderIndex(n, 0.95);
    EXPECT_EQ(r.k, t + 1) << "n=" << n;
    EXPECT_TRUE(r.exact);
    EXPECT_GE(r.confidence, 0.95);
  }
  std::map<size_t, size_t> t01 = {{8, 0},   {9, 1},   {10, 3},  {11, 5},  {12, 7},
                                  {13, 9},  {14, 12}, {15, 15}, {16, 19}, {17, 23},
                                  {18, 27}, {19, 32}, {20, 37}};
  for (auto [n, t] : t01) EXPECT_EQ(SignedRankOrderIndex(n, 0.99).k, t + 1) << "n=" << n;
  // Below the table: no interval at all.
  EXPECT_EQ(SignedRankOrderIndex(5, 0.95).k, 0u);
  EXPECT_EQ(SignedRankOrderIndex(7, 0.99).k, 0u);
}

TEST(SignedRankEstimate, SixPairsHandComputed) {
  // n = 6 at 95%: T = 0, so the interval spans the smallest to the largest Walsh average, i.e.
  // min(d) to max(d), at confidence 1 - 2/64. By symmetry the pseudo-median of 1..6 is 3.5.
  std::vector<double> d = {4, 1, 6, 3, 5, 2};
  Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->estimate, 3.5);
  EXPECT_EQ(r->low, 1);
  EXPECT_EQ(r->high, 6);
  EXPECT_DOUBLE_EQ(r->confidence, 1 - 2.0 / 64);
  EXPECT_EQ(r->n, 6u);
  EXPECT_TRUE(r->exact);
}

TEST(SignedRankEstimate, EightAndTenPairsAgainstWalshEnumeration) {
  // n = 8: T = 3, P(W <= 3) = 5/256 ({}, {1}, {2}, {3}, {1,2}): 4th smallest and largest of 36.
  std::vector<double> d8 = {0.12, -0.03, 0.08, 0.21, 0.05, -0.11, 0.17, 0.02};
  std::vector<double> w8 = SortedWalsh(d8);
  Result<ShiftEstimate> r8 = SignedRankEstimate(d8, 0.95);
  ASSERT_TRUE(r8.ok());
  EXPECT_DOUBLE_EQ(r8->low, w8[3]);
  EXPECT_DOUBLE_EQ(r8->high, w8[36 - 4]);
  EXPECT_DOUBLE_EQ(r8->estimate, SortedMedian(w8));
  EXPECT_DOUBLE_EQ(r8->confidence, 1 - 10.0 / 256);

  // n = 10: T = 8, P(W <= 8) = 25/1024: the 9th smallest and 9th largest of 55.
  std::vector<double> d10 = {0.31, 0.05, -0.07, 0.22, 0.14, 0.09, 0.41, -0.02, 0.18, 0.11};
  std::vector<double> w10 = SortedWalsh(d10);
  Result<ShiftEstimate> r10 = SignedRankEstimate(d10, 0.95);
  ASSERT_TRUE(r10.ok());
  EXPECT_DOUBLE_EQ(r10->low, w10[8]);
  EXPECT_DOUBLE_EQ(r10->high, w10[55 - 9]);
  EXPECT_DOUBLE_EQ(r10->estimate, w10[27]);  // 55 averages: the 28th is the median
  EXPECT_DOUBLE_EQ(r10->confidence, 1 - 50.0 / 1024);
}

TEST(SignedRankEstimate, RandomDataAgainstBruteForce) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.02, 0.05);
  for (size_t n : {6u, 7u, 9u, 13u, 20u, 33u, 60u, 61u, 90u}) {
    std::vector<double> d(n);
    for (double& v : d) v = noise(rng);
    std::vector<double> w = SortedWalsh(d);
    RankInterval index = SignedRankOrderIndex(n, 0.95);
    Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
    ASSERT_TRUE(r.ok());
    EXPECT_DOUBLE_EQ(r->low, w[index.k - 1]) << n;
    EXPECT_DOUBLE_EQ(r->high, w[w.size() - index.k]) << n;
    EXPECT_DOUBLE_EQ(r->estimate, SortedMedian(w)) << n;
    EXPECT_EQ(r->exact, n <= kMaxExactSignedRankN);
    EXPECT_LE(r->low, r->estimate);
    EXPECT_LE(r->estimate, r->high);
  }
}

TEST(SignedRankEstimate, TiesAndZerosAreKept) {
  // Quantised timings: many exact zeros and repeated values. Nothing is dropped: n stays 10
  // and the interval is still the 9th smallest / largest Walsh average.
  std::vector<double> d = {0, 0, 0, 0.1, 0.1, -0.1, 0.2, 0, 0.1, 0};
  std::vector<double> w = SortedWalsh(d);
  Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->n, 10u);
  EXPECT_DOUBLE_EQ(r->low, w[8]);
  EXPECT_DOUBLE_EQ(r->high, w[46]);
  EXPECT_DOUBLE_EQ(r->estimate, SortedMedian(w));
  // By hand: 6 averages are negative (-0.1 once, -0.05 five times) and 18 are zero, so the
  // 9th smallest is 0; 15 are >= 0.1 (0.2, three 0.15, eleven 0.1), so the 9th largest is
  // 0.1; the 28th of 55 falls among the sixteen 0.05s.
  EXPECT_DOUBLE_EQ(r->low, 0);
  EXPECT_DOUBLE_EQ(r->high, 0.1);
  EXPECT_DOUBLE_EQ(r->estimate, 0.05);
  // All pairs identical: a degenerate but valid interval at that value.
  std::vector<double> same(8, 0.25);
  Result<ShiftEstimate> s = SignedRankEstimate(same, 0.95);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->estimate, 0.25);
  EXPECT_EQ(s->low, 0.25);
  EXPECT_EQ(s->high, 0.25);
  std::vector<double> zeros(12, 0.0);
  Result<ShiftEstimate> z = SignedRankEstimate(zeros, 0.95);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->low, 0);
  EXPECT_EQ(z->high, 0);
}

TEST(SignedRankEstimate, TiedDataKeepCoverage) {
  // Heavily quantised symmetric noise around a true shift of 0.1 (values on a 0.1 grid): the
  // closed interval must cover the true shift at least as often as the stated confidence.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> step(-2, 2);
  int covered = 0;
  const int kTrials = 2000;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> d(12);
    for (double& v : d) v = 0.1 + 0.1 * step(rng);
    Result<ShiftEstimate> r = SignedRankEstimate(d, 0.9);
    ASSERT_TRUE(r.ok());
    if (r->low <= 0.1 + 1e-12 && 0.1 - 1e-12 <= r->high) ++covered;
  }
  EXPECT_GE(covered, 0.9 * kTrials);
}

TEST(SignedRankEstimate, TooFewPairsIsAClearError) {
  EXPECT_EQ(MinPairsForSignedRank(0.95), 6u);
  EXPECT_EQ(MinPairsForSignedRank(0.99), 8u);
  EXPECT_EQ(MinPairsForSignedRank(0.90), 5u);
  // 2^-n <= 2.25e-15 first at n = 49 (an early O'Brien–Fleming look).
  EXPECT_EQ(MinPairsForSignedRank(1 - 4.5e-15), 49u);
  for (size_t n = 1; n <= 5; ++n) {
    std::vector<double> d(n, 0.1);
    Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.error().message().find("at least 6 pairs"), std::string::npos)
        << r.error().message();
    EXPECT_NE(r.error().hint().find("6"), std::string::npos);
  }
  std::vector<double> seven(7, 0.1);
  Result<ShiftEstimate> r = SignedRankEstimate(seven, 0.99);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("99%"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("at least 8"), std::string::npos);
}

TEST(SignedRankEstimate, RejectsBadInput) {
  std::vector<double> d = {0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.1};
  for (double c : {0.0, 1.0, 1.5, -0.2, std::nan("")}) {
    Result<ShiftEstimate> r = SignedRankEstimate(d, c);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind(), ErrorKind::kUsage);
  }
  EXPECT_FALSE(SignedRankEstimate(std::vector<double>{}, 0.95).ok());
  d[3] = NAN;
  Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("pair 4"), std::string::npos) << r.error().message();
  d[3] = INFINITY;
  EXPECT_FALSE(SignedRankEstimate(d, 0.95).ok());
}

TEST(SignedRankEstimate, NormalApproximationAgreesWithExactNearTheSwitch) {
  // The exact distribution of W+ has lighter tails than the normal, so at 99% the
  // approximation sits a few ranks wider (conservative); what matters is that the difference
  // is a negligible fraction of sigma and the achieved confidence is the same to 0.3%.
  for (size_t n = 40; n <= 90; ++n) {
    double sigma = std::sqrt(n * (n + 1.0) * (2 * n + 1) / 24);
    for (double c : {0.9, 0.95, 0.99}) {
      RankInterval exact = SignedRankOrderIndex(n, c, RankMethod::kExact);
      RankInterval normal = SignedRankOrderIndex(n, c, RankMethod::kNormal);
      EXPECT_TRUE(exact.exact);
      EXPECT_FALSE(normal.exact);
      double dk = static_cast<double>(exact.k) - static_cast<double>(normal.k);
      EXPECT_LE(std::fabs(dk), 0.05 * sigma) << "n=" << n << " c=" << c;
      EXPECT_GE(dk, -1) << "never more than one rank narrower: n=" << n << " c=" << c;
      EXPECT_NEAR(exact.confidence, normal.confidence, 0.003) << "n=" << n << " c=" << c;
    }
  }
  EXPECT_TRUE(SignedRankOrderIndex(kMaxExactSignedRankN, 0.95).exact);
  EXPECT_FALSE(SignedRankOrderIndex(kMaxExactSignedRankN + 1, 0.95).exact);
  // And the estimates themselves barely move at the switch.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.04);
  std::vector<double> d(60);
  for (double& v : d) v = noise(rng);
  Result<ShiftEstimate> e = SignedRankEstimate(d, 0.95, RankMethod::kExact);
  Result<ShiftEstimate> a = SignedRankEstimate(d, 0.95, RankMethod::kNormal);
  ASSERT_TRUE(e.ok() && a.ok());
  double width = e->high - e->low;
  EXPECT_NEAR(e->low, a->low, 0.05 * width);
  EXPECT_NEAR(e->high, a->high, 0.05 * width);
  EXPECT_EQ(e->estimate, a->estimate);
}

// P(U = u) for group sizes m, n by enumerating every arrangement of the pooled order.
std::vector<double> BruteForceRankSum(size_t m, size_t n) {
  std::vector<double> counts(m * n + 1, 0);
  double total = 0;
  for (unsigned mask = 0; mask < (1u << (m + n)); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != n) continue;
    // Bit i set: position i (ascending) holds a y. U = #(x < y) pairs.
    size_t u = 0, xs_below = 0;
    for (size_t i = 0; i < m + n; ++i) {
      if (mask & (1u << i)) {
        u += xs_below;
      } else {
        ++xs_below;
      }
    }
    counts[u] += 1;
    total += 1;
  }
  for (double& c : counts) c /= total;
  return counts;
}

TEST(RankSumDistribution, MatchesEnumeration) {
  for (auto [m, n] : std::vector<std::pair<size_t, size_t>>{
           {1, 1}, {1, 4}, {3, 4}, {4, 3}, {5, 5}, {2, 9}, {6, 7}}) {
    std::vector<double> dp = RankSumNullDistribution(m, n);
    std::vector<double> brute = BruteForceRankSum(m, n);
    ASSERT_EQ(dp.size(), brute.size());
    for (size_t u = 0; u < dp.size(); ++u) EXPECT_NEAR(dp[u], brute[u], 1e-15) << m << "," << n;
  }
}

TEST(RankSumDistribution, ReproducesMannWhitneyTableCriticalValues) {
  // Two-sided alpha 0.05, equal groups: reject when U <= U_crit.
  std::map<size_t, size_t> table = {{4, 0},  {5, 2},  {6, 5},   {7, 8},
                                    {8, 13}, {9, 17}, {10, 23}, {20, 127}};
  for (auto [size, u] : table) EXPECT_EQ(RankSumOrderIndex(size, size, 0.95).k, u + 1) << size;
  EXPECT_EQ(RankSumOrderIndex(3, 3, 0.95).k, 0u);
  // The normal approximation agrees to a small fraction of sigma (about 290) at the limit.
  for (double c : {0.9, 0.95, 0.99}) {
    RankInterval e = RankSumOrderIndex(50, 50, c, RankMethod::kExact);
    RankInterval a = RankSumOrderIndex(50, 50, c, RankMethod::kNormal);
    EXPECT_LE(std::abs(static_cast<long>(e.k) - static_cast<long>(a.k)), 3) << c;
    EXPECT_NEAR(e.confidence, a.confidence, 0.003) << c;
  }
  EXPECT_FALSE(RankSumOrderIndex(51, 50, 0.95).exact);
}

TEST(RankSumEstimate, HandComputedShift) {
  // y = x + 10: differences y_j - x_i are 10 + (j - i), j - i in -4..4 with multiplicities
  // 1,2,3,4,5,4,3,2,1. Median 10; at 95% with 5 and 5, U_crit = 2 so k = 3: the 3rd smallest
  // difference is 7 and the 3rd largest 13; P(U <= 2) = 4/252.
  std::vector<double> x = {1, 2, 3, 4, 5};
  std::vector<double> y = {11, 12, 13, 14, 15};
  Result<ShiftEstimate> r = RankSumEstimate(x, y, 0.95);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->estimate, 10);
  EXPECT_EQ(r->low, 7);
  EXPECT_EQ(r->high, 13);
  EXPECT_DOUBLE_EQ(r->confidence, 1 - 8.0 / 252);
  EXPECT_EQ(r->n, 10u);
  EXPECT_TRUE(r->exact);
}

TEST(RankSumEstimate, RandomDataAgainstBruteForce) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 1);
  for (auto [m, n] : std::vector<std::pair<size_t, size_t>>{{6, 9}, {12, 12}, {30, 20}, {60, 55}}) {
    std::vector<double> x(m), y(n);
    for (double& v : x) v = noise(rng);
    for (double& v : y) v = noise(rng) + 0.5;
    std::vector<double> diffs;
    for (double xi : x) {
      for (double yj : y) diffs.push_back(yj - xi);
    }
    std::sort(diffs.begin(), diffs.end());
    RankInterval index = RankSumOrderIndex(m, n, 0.95);
    Result<ShiftEstimate> r = RankSumEstimate(x, y, 0.95);
    ASSERT_TRUE(r.ok());
    EXPECT_DOUBLE_EQ(r->low, diffs[index.k - 1]);
    EXPECT_DOUBLE_EQ(r->high, diffs[diffs.size() - index.k]);
    EXPECT_DOUBLE_EQ(r->estimate, SortedMedian(diffs));
    EXPECT_EQ(r->exact, m <= kMaxExactRankSumN && n <= kMaxExactRankSumN);
  }
}

TEST(RankSumEstimate, TooFewSamplesAndBadInput) {
  std::vector<double> three = {1, 2, 3};
  Result<ShiftEstimate> r = RankSumEstimate(three, three, 0.95);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("at least 4 samples per arm"), std::string::npos)
      << r.error().message();
  EXPECT_FALSE(RankSumEstimate(std::vector<double>{}, three, 0.95).ok());
  std::vector<double> bad = {1, 2, NAN, 4};
  EXPECT_FALSE(RankSumEstimate(bad, bad, 0.95).ok());
  EXPECT_EQ(RankSumEstimate(three, three, 1.0).error().kind(), ErrorKind::kUsage);
}

// Known answers from R's fisher.test.
TEST(FisherExactTwoSided, MatchesReferenceValues) {
  // Fisher's tea tasting: 3 of 4 against 1 of 4.
  EXPECT_NEAR(FisherExactTwoSided(3, 4, 1, 4), 0.4857143, 1e-6);
  // matrix(c(1, 11, 9, 3), 2): 1 of 12 against 9 of 12.
  EXPECT_NEAR(FisherExactTwoSided(1, 12, 9, 12), 0.002759456, 1e-8);
  // 0 of 40 against 10 of 40.
  EXPECT_NEAR(FisherExactTwoSided(0, 40, 10, 40), 0.0010296563, 1e-8);
  // Symmetric in the arms.
  EXPECT_DOUBLE_EQ(FisherExactTwoSided(10, 40, 0, 40), FisherExactTwoSided(0, 40, 10, 40));
}

TEST(FisherExactTwoSided, NothingToTestIsOne) {
  EXPECT_EQ(FisherExactTwoSided(0, 10, 0, 10), 1);
  EXPECT_EQ(FisherExactTwoSided(10, 10, 10, 10), 1);
  EXPECT_EQ(FisherExactTwoSided(0, 0, 3, 10), 1);
  EXPECT_NEAR(FisherExactTwoSided(1, 40, 0, 40), 1, 1e-12);
}

}  // namespace
}  // namespace culprit
