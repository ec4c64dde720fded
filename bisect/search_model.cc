#include "bisect/search_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace culprit {
namespace {

// kMinNoise, the floor on the noise scale of a timed metric: scripted or quantised timings can
// make every d of a batch identical, and a zero scale would make one pair infinitely decisive.
// One pair's evidence is at most 2.5 ln(1 + δ² / (4 s²)) nats (kStudentDof = 4); at the old
// floor of 0.001 a pair carried 22 nats at δ = ln 1.18 and 28 at ln 1.65, on timings whose
// spread was only their quantisation. At 0.02 (2% per pair, below the 4.2% of the simulator's
// quiet host, so its figures do not move) one pair carries at most 7.2 nats at ln 1.18, 4.8 at
// ln 1.10: it can tip a step, never settle a bisect on its own. See docs/statistics.md.
//
// kNearDeterministicMinNoise (0.001) is for a metric whose repeats are not quantised timings
// but counts that repeat: a pair of instruction counts carries up to 14.6 nats at δ = ln 1.038
// (lua's move), and it should: the pair is the move to within 0.0004%. A step is then decided
// by one batch of 2 pairs. A count that does spread (a program that is not deterministic)
// fits its s above the floor, and its steps take the pairs that s asks for.
constexpr int kMaxIterations = 30;
constexpr double kTolerance = 1e-8;

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + mid)) / 2;
  return m;
}

// Robust starting scale: the spread of each batch around its own median, pooled. Batch
// medians absorb the unknown location, so this needs no guess of which batches are bad.
double InitialNoise(std::span<const Observation> observations, double min_noise) {
  std::vector<double> residuals;
  for (const Observation& o : observations) {
    if (o.d.size() < 2) continue;
    const double m = MedianOf(o.d);
    for (double x : o.d) residuals.push_back(std::abs(x - m));
  }
  if (residuals.empty()) {
    for (const Observation& o : observations)
      for (double x : o.d) residuals.push_back(std::abs(x));
  }
  return std::max(min_noise, 1.4826 * MedianOf(std::move(residuals)));
}

// Log-likelihood ratio "bad" vs "good" of one batch: the normalising terms of the two
// Student-t densities are equal and cancel.
double LogLikelihoodRatio(const Observation& o, double effect, double noise) {
  const double scale = kStudentDof * noise * noise;
  double sum = 0;
  for (double x : o.d) {
    const double rb = x - effect;
    sum += std::log1p(x * x / scale) - std::log1p(rb * rb / scale);
  }
  return 0.5 * (kStudentDof + 1) * sum;
}

std::vector<double> PosteriorUnder(int n, std::span<const Observation> observations, double effect,
                                   double noise, std::span<const int> excluded) {
  // Hypothesis j gains an observation's log-likelihood ratio exactly when
  // baseline < j <= commit: a range update, done with a difference array.
  std::vector<double> delta(n + 2, 0.0);
  for (const Observation& o : observations) {
    const double llr = LogLikelihoodRatio(o, effect, noise);
    delta[o.baseline + 1] += llr;
    delta[o.commit + 1] -= llr;
  }
  std::vector<double> log_post(n + 1, 0.0);
  std::vector<bool> out(n + 1, false);
  for (int j : excluded) out[j] = true;
  double running = 0;
  double top = -INFINITY;
  for (int j = 1; j <= n; ++j) {
    running += delta[j];
    log_post[j] = running;
    if (!out[j]) top = std::max(top, running);
  }
  std::vector<double> post(n + 1, 0.0);
  if (top == -INFINITY) return post;  // every hypothesis excluded
  double total = 0;
  for (int j = 1; j <= n; ++j) {
    post[j] = out[j] ? 0.0 : std::exp(log_post[j] - top);
    total += post[j];
  }
  for (int j = 1; j <= n; ++j) post[j] /= total;
  return post;
}

/// The prior over "the first bad commit is j": uniform over 1..n but the excluded commits
/// (refuted candidates), which get zero.
std::vector<double> UniformPrior(int n, std::span<const int> excluded) {
  std::vector<double> prior(n + 1, 1.0 / n);
  prior[0] = 0;
  if (excluded.empty()) return prior;
  const int left = n - static_cast<int>(excluded.size());
  for (int j : excluded) {
    assert(1 <= j && j <= n);
    prior[j] = 0;
  }
  for (int j = 1; j <= n; ++j) {
    if (prior[j] > 0) prior[j] = left > 0 ? 1.0 / left : 0.0;
  }
  return prior;
}

/// EM's starting δ: the median of the pairs that are bad under every hypothesis (commit N
/// against the good build), else each pair weighted by the share of hypotheses under which it
/// compares a bad commit with a good one. Starting from a uniform posterior instead would
/// average in every good candidate's pairs, and from such a small δ EM can settle on the
/// useless fixed point δ ≈ 0 where nothing discriminates and the posterior stays flat.
double InitialEffect(int n, std::span<const Observation> observations) {
  std::vector<double> endpoint;
  for (const Observation& o : observations) {
    if (o.commit == n && o.baseline == 0) endpoint.insert(endpoint.end(), o.d.begin(), o.d.end());
  }
  if (!endpoint.empty()) return MedianOf(std::move(endpoint));
  double num = 0, den = 0;
  for (const Observation& o : observations) {
    const double q = static_cast<double>(o.commit - o.baseline) / n;
    for (double x : o.d) num += q * x;
    den += q * static_cast<double>(o.d.size());
  }
  return num / den;
}

}  // namespace

ModelFit FitSearchModel(int n, std::span<const Observation> observations,
                        std::span<const int> excluded, double min_noise) {
  assert(n >= 1 && min_noise > 0);
  ModelFit fit;
  fit.posterior = UniformPrior(n, excluded);
  size_t count = 0;
  for (const Observation& o : observations) {
    assert(0 <= o.baseline && o.baseline < o.commit && o.commit <= n);
    count += o.d.size();
  }
  if (count == 0) return fit;

  double noise = InitialNoise(observations, min_noise);
  double effect = InitialEffect(n, observations);
  fit.posterior = PosteriorUnder(n, observations, effect, noise, excluded);
  std::vector<double> cdf(n + 1, 0.0);
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    double acc = 0;
    for (int j = 0; j <= n; ++j) {
      acc += fit.posterior[j];
      cdf[j] = acc;
    }
    // M-step (ECM): the Student-t location δ and the common scale s, each pair weighted by
    // q, the posterior probability that its batch compared a bad commit with a good one,
    // and by the usual t weight, which shrinks outliers.
    const double var = noise * noise;
    double num = 0, den = 0;
    for (const Observation& o : observations) {
      const double q = std::clamp(cdf[o.commit] - cdf[o.baseline], 0.0, 1.0);
      for (double x : o.d) {
        const double rb = x - effect;
        const double ub = (kStudentDof + 1) / (kStudentDof + rb * rb / var);
        num += q * ub * x;
        den += q * ub;
      }
    }
    const double new_effect = den > 0 ? num / den : effect;
    double ss = 0;
    for (const Observation& o : observations) {
      const double q = std::clamp(cdf[o.commit] - cdf[o.baseline], 0.0, 1.0);
      for (double x : o.d) {
        const double rb = x - new_effect;
        const double ub = (kStudentDof + 1) / (kStudentDof + rb * rb / var);
        const double ug = (kStudentDof + 1) / (kStudentDof + x * x / var);
        ss += q * ub * rb * rb + (1 - q) * ug * x * x;
      }
    }
    const double new_noise = std::max(min_noise, std::sqrt(ss / static_cast<double>(count)));
    const double change = std::abs(new_effect - effect) + std::abs(new_noise - noise);
    effect = new_effect;
    noise = new_noise;
    fit.posterior = PosteriorUnder(n, observations, effect, noise, excluded);
    if (change < kTolerance) break;
  }
  fit.effect = effect;
  fit.noise = noise;
  return fit;
}

}  // namespace culprit
