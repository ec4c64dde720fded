#include "probes/statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <string>

#include "base/strings.h"

namespace culprit {
namespace {

// Probabilities of the discrete null distributions are dyadic or ratios of
// binomials, and (1 - confidence) / 2 is rarely exact in binary; a relative
// tolerance keeps "P <= alpha/2" from flipping on the last bit. Relative, because
// early sequential looks ask for tails of 1e-15.
constexpr double kRelativeSlack = 1e-9;

bool ValidConfidence(double confidence) { return confidence > 0 && confidence < 1; }

Error BadConfidence(double confidence) {
  return Error::Usage(
             fmt::format("confidence must be strictly between 0 and 1, got {}", confidence))
      .WithHint("use e.g. confidence = 0.95 in [measure]");
}

// Median and the k-th smallest and k-th largest of `values` (reordered), for a
// rank interval. Selecting the median first and the ends within its two halves
// costs about 2 passes instead of 3 over the O(n²) averages.
ShiftEstimate SummarizeOrderStatistics(std::vector<double>& values, size_t k) {
  size_t count = values.size();
  assert(k >= 1 && 2 * k <= count + 1);
  auto at = [&values](size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
  size_t mid = (count - 1) / 2;  // lower middle, 0-based
  std::nth_element(values.begin(), at(mid), values.end());
  ShiftEstimate result;
  result.estimate = values[mid];
  if (count % 2 == 0)
    result.estimate = (values[mid] + *std::min_element(at(mid + 1), values.end())) / 2;
  // Everything left of mid is <= values[mid] and everything right is >=, and the
  // interval's ends lie on either side (k <= (count + 1) / 2).
  size_t lo = k - 1, hi = count - k;
  if (lo < mid) std::nth_element(values.begin(), at(lo), at(mid));
  if (hi > mid) std::nth_element(at(mid + 1), at(hi), values.end());
  result.low = values[lo];
  result.high = values[hi];
  return result;
}

// Largest k with cdf(k - 1) <= tail, from an exact distribution.
RankInterval ExactOrderIndex(const std::vector<double>& distribution, double tail) {
  RankInterval result;
  result.exact = true;
  double cumulative = 0;
  for (size_t w = 0; w < distribution.size(); ++w) {
    double next = cumulative + distribution[w];
    if (next > tail * (1 + kRelativeSlack)) break;
    cumulative = next;
    result.k = w + 1;
  }
  result.confidence = result.k == 0 ? 0 : 1 - 2 * cumulative;
  return result;
}

// Largest k with Φ((k - 1/2 - mean) / sigma) <= tail (continuity-corrected P(T <= k - 1)).
RankInterval NormalOrderIndex(double mean, double sigma, double tail) {
  RankInterval result;
  double z = -NormalQuantile(tail);
  double k = std::floor(mean + 0.5 - z * sigma + 1e-9);
  if (k < 1) return result;
  result.k = static_cast<size_t>(k);
  result.confidence = 1 - 2 * NormalCdf((k - 0.5 - mean) / sigma);
  return result;
}

Status CheckFinite(std::span<const double> values, std::string_view what) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return Error(fmt::format("{} {} is not a finite number ({})", what, i + 1, values[i]))
          .WithHint("log-ratios need positive, finite times; check the metric of the query");
    }
  }
  return {};
}

}  // namespace

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

double NormalQuantile(double p) {
  if (!(p > 0)) return p == 0 ? -INFINITY : NAN;
  if (!(p < 1)) return p == 1 ? INFINITY : NAN;
  // Upper half by symmetry: 1 - p is exact for p >= 0.5, and the refinement
  // below needs the small tail probability to avoid cancellation.
  if (p > 0.5) return -NormalQuantile(1 - p);
  // Acklam's rational approximation (relative error 1.15e-9) ...
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5;
    double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // ... polished by one Halley step against erfc, which brings it to double precision.
  double e = NormalCdf(x) - p;
  double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double Quantile(std::span<const double> values, double q) {
  assert(!values.empty());
  assert(q >= 0 && q <= 1);
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  double h = (static_cast<double>(sorted.size()) - 1) * q;
  size_t lower = static_cast<size_t>(std::floor(h));
  if (lower + 1 >= sorted.size()) return sorted.back();
  double fraction = h - static_cast<double>(lower);
  return sorted[lower] + fraction * (sorted[lower + 1] - sorted[lower]);
}

double MedianAbsoluteDeviation(std::span<const double> values) {
  double center = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return MedianInPlace(deviations);
}

std::vector<double> SignedRankNullDistribution(size_t n) {
  // Under the null each rank i joins W+ with probability 1/2, independently:
  // P_i(w) = (P_{i-1}(w) + P_{i-1}(w - i)) / 2.
  size_t max_w = n * (n + 1) / 2;
  std::vector<double> p(max_w + 1, 0.0);
  p[0] = 1;
  size_t reach = 0;
  for (size_t i = 1; i <= n; ++i) {
    reach += i;
    for (size_t w = reach; w >= i; --w) p[w] = (p[w] + p[w - i]) / 2;
    for (size_t w = std::min(i, reach + 1); w-- > 0;) p[w] /= 2;
  }
  return p;
}

std::vector<double> RankSumNullDistribution(size_t m, size_t n) {
  // U = (rank sum of the smaller group) - s(s+1)/2, every choice of its s
  // ranks among 1..m+n equally likely: count subsets by size and sum.
  size_t s = std::min(m, n);
  size_t total = m + n;
  size_t max_u = m * n;
  size_t max_sum = max_u + s * (s + 1) / 2;
  std::vector<std::vector<double>> ways(s + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  for (size_t r = 1; r <= total; ++r) {
    for (size_t c = std::min(r, s); c >= 1; --c) {
      // Largest sum of c ranks drawn from 1..r.
      size_t top = std::min(max_sum, c * (2 * r - c + 1) / 2);
      for (size_t sum = top; sum >= r; --sum) ways[c][sum] += ways[c - 1][sum - r];
    }
  }
  double combinations = 0;
  for (double w : ways[s]) combinations += w;
  std::vector<double> p(max_u + 1, 0.0);
  size_t offset = s * (s + 1) / 2;
  for (size_t u = 0; u <= max_u; ++u) p[u] = ways[s][u + offset] / combinations;
  return p;
}

RankInterval SignedRankOrderIndex(size_t n, double confidence, RankMethod method) {
  assert(ValidConfidence(confidence));
  if (n == 0) return {};
  double tail = (1 - confidence) / 2;
  bool exact =
      method == RankMethod::kExact || (method == RankMethod::kAuto && n <= kMaxExactSignedRankN);
  if (exact) return ExactOrderIndex(SignedRankNullDistribution(n), tail);
  double nd = static_cast<double>(n);
  return NormalOrderIndex(nd * (nd + 1) / 4, std::sqrt(nd * (nd + 1) * (2 * nd + 1) / 24), tail);
}

RankInterval RankSumOrderIndex(size_t m, size_t n, double confidence, RankMethod method) {
  assert(ValidConfidence(confidence));
  if (m == 0 || n == 0) return {};
  double tail = (1 - confidence) / 2;
  bool exact = method == RankMethod::kExact ||
               (method == RankMethod::kAuto && m <= kMaxExactRankSumN && n <= kMaxExactRankSumN);
  if (exact) return ExactOrderIndex(RankSumNullDistribution(m, n), tail);
  double md = static_cast<double>(m), nd = static_cast<double>(n);
  return NormalOrderIndex(md * nd / 2, std::sqrt(md * nd * (md + nd + 1) / 12), tail);
}

size_t MinPairsForSignedRank(double confidence) {
  assert(ValidConfidence(confidence));
  // k >= 1 is monotone in n, and the smallest exact case needs 2^-n <= tail,
  // so start the scan there rather than at 1.
  double tail = (1 - confidence) / 2;
  size_t n = std::max<size_t>(1, static_cast<size_t>(std::floor(-std::log2(tail))));
  while (SignedRankOrderIndex(n, confidence).k == 0) ++n;
  while (n > 1 && SignedRankOrderIndex(n - 1, confidence).k > 0) --n;
  return n;
}

Result<ShiftEstimate> SignedRankEstimate(std::span<const double> d, double confidence,
                                         RankMethod method) {
  if (!ValidConfidence(confidence)) return BadConfidence(confidence);
  if (d.empty()) {
    return Error("no pairs to estimate a ratio from").WithHint("collect at least a few pairs");
  }
  CULPRIT_TRY(CheckFinite(d, "log-ratio of pair"));
  size_t n = d.size();
  RankInterval index = SignedRankOrderIndex(n, confidence, method);
  if (index.k == 0) {
    size_t minimum = MinPairsForSignedRank(confidence);
    return Error(fmt::format("{} cannot give a {} signed-rank interval: it needs at least {} pairs",
                             CountOf(n, "pair"), PercentOf(confidence), minimum))
        .WithHint(
            fmt::format("collect at least {} pairs (min_pairs) or lower the confidence", minimum));
  }
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  ShiftEstimate result = SummarizeOrderStatistics(walsh, index.k);
  result.n = n;
  result.exact = index.exact;
  result.confidence = index.confidence;
  return result;
}

Result<ShiftEstimate> RankSumEstimate(std::span<const double> x, std::span<const double> y,
                                      double confidence, RankMethod method) {
  if (!ValidConfidence(confidence)) return BadConfidence(confidence);
  if (x.empty() || y.empty()) {
    return Error(fmt::format("an unpaired comparison needs samples of both arms; got {} and {}",
                             x.size(), y.size()));
  }
  CULPRIT_TRY(CheckFinite(x, "log-time of sample A"));
  CULPRIT_TRY(CheckFinite(y, "log-time of sample B"));
  RankInterval index = RankSumOrderIndex(x.size(), y.size(), confidence, method);
  if (index.k == 0) {
    size_t each = 1;
    while (RankSumOrderIndex(each, each, confidence).k == 0) ++each;
    return Error(fmt::format("{} and {} samples cannot give a {} rank-sum interval: it needs at "
                             "least {} samples per arm when the arms are equal",
                             x.size(), y.size(), PercentOf(confidence), each))
        .WithHint("collect more samples of each arm or lower the confidence");
  }
  std::vector<double> differences;
  differences.reserve(x.size() * y.size());
  for (double xi : x) {
    for (double yj : y) differences.push_back(yj - xi);
  }
  ShiftEstimate result = SummarizeOrderStatistics(differences, index.k);
  result.n = x.size() + y.size();
  result.exact = index.exact;
  result.confidence = index.confidence;
  return result;
}

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < 1e-15) break;
  }
  return h;
}

// I_x(a, b).
double RegularizedBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

// P(T > t) for t >= 0.
double StudentTUpperTail(double t, double dof) {
  return 0.5 * RegularizedBeta(dof / 2, 0.5, dof / (dof + t * t));
}

}  // namespace

double StudentTQuantile(double p, double dof) {
  assert(dof > 0);
  if (!(p > 0)) return p == 0 ? -INFINITY : NAN;
  if (!(p < 1)) return p == 1 ? INFINITY : NAN;
  if (p == 0.5) return 0;
  if (p < 0.5) return -StudentTQuantile(1 - p, dof);
  const double tail = 1 - p;
  // Bracket, then bisect: the tail is monotone in t, and ~200 halvings reach double precision.
  double lo = 0, hi = 1;
  while (StudentTUpperTail(hi, dof) > tail && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTUpperTail(mid, dof) > tail ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Result<ShiftEstimate> MeanShiftEstimate(std::span<const double> d, double confidence) {
  if (!ValidConfidence(confidence)) return BadConfidence(confidence);
  if (d.size() < 2) {
    return Error(fmt::format("{} cannot give a mean's interval: it needs at least 2",
                             CountOf(d.size(), "pair")));
  }
  CULPRIT_TRY(CheckFinite(d, "log-ratio of pair"));
  const double n = static_cast<double>(d.size());
  double mean = 0;
  for (double x : d) mean += x;
  mean /= n;
  double ss = 0;
  for (double x : d) ss += (x - mean) * (x - mean);
  return StudentTInterval(mean, std::sqrt(ss / (n - 1) / n), n - 1, confidence, d.size());
}

ShiftEstimate StudentTInterval(double mean, double se, double dof, double confidence, size_t n) {
  // From the tail, so that a confidence within 1e-16 of 1 still gives a finite quantile.
  const double t = -StudentTQuantile(std::max(1 - confidence, 1e-300) / 2, dof);
  ShiftEstimate result;
  result.estimate = mean;
  result.low = mean - t * se;
  result.high = mean + t * se;
  result.confidence = confidence;
  result.n = n;
  result.exact = false;
  return result;
}

double SignTestTwoSided(int k, int n) {
  if (n <= 0) return 1;
  const int low = std::min(k, n - k);
  // P(X <= low) for X ~ Binomial(n, 1/2), term by term on the log scale.
  double p = 0;
  for (int x = 0; x <= low; ++x) {
    p += std::exp(std::lgamma(n + 1.0) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) -
                  n * std::numbers::ln2);
  }
  return std::min(1.0, 2 * p);
}

TailBalance TestTailBalance(std::span<const double> d, double center, double threshold) {
  TailBalance result;
  result.center = center;
  result.threshold = threshold;
  for (double x : d) {
    if (x > center + threshold) ++result.slow;
    if (x < center - threshold) ++result.fast;
  }
  result.p_value = SignTestTwoSided(result.slow, result.slow + result.fast);
  return result;
}

double FisherExactTwoSided(int a_failed, int a_runs, int b_failed, int b_runs) {
  if (a_runs <= 0 || b_runs <= 0 || a_failed < 0 || b_failed < 0 || a_failed > a_runs ||
      b_failed > b_runs) {
    return 1;
  }
  const int failed = a_failed + b_failed;
  const int runs = a_runs + b_runs;
  if (failed == 0 || failed == runs) return 1;
  // P(A has x failures | margins) is hypergeometric: C(a_runs, x) C(b_runs, failed - x) /
  // C(runs, failed), computed on the log scale so large sittings do not overflow.
  auto log_choose = [](int n, int k) {
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
  };
  const double log_total = log_choose(runs, failed);
  auto probability = [&](int x) {
    return std::exp(log_choose(a_runs, x) + log_choose(b_runs, failed - x) - log_total);
  };
  const double observed = probability(a_failed);
  double p = 0;
  for (int x = std::max(0, failed - b_runs); x <= std::min(failed, a_runs); ++x) {
    double px = probability(x);
    // Tables as likely as the observed one count too; the tolerance keeps rounding from
    // splitting ties (R's fisher.test uses the same relative 1e-7).
    if (px <= observed * (1 + 1e-7)) p += px;
  }
  return std::min(1.0, p);
}

}  // namespace culprit
