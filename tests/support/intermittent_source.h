#pragma once

// A seeded paired-run source whose arm B holds an intermittent slowdown: the simulator's
// "x2 in 15%" commit as one sitting sees it, for the tests of ties and tails.

#include <cmath>
#include <cstdint>
#include <random>

#include "probes/sitting.h"

namespace culprit {

/// Arm B is `ratio` times arm A, and in `slow_rate` of its runs `slow_factor` times more, with
/// log-normal noise `sigma` on every run and, in `wild_rate` of all runs (either arm), a wild
/// run 2.5 times as slow (a preempted or migrated run); all from a seeded generator. Each run
/// draws its noise, then whether it is wild (only when wild_rate > 0), then for B whether it
/// is slow, so a source without wild runs draws as it did before they were added.
class IntermittentSource : public SampleSource {
 public:
  IntermittentSource(double ratio, double slow_rate, double slow_factor, double sigma,
                     uint64_t seed, double wild_rate = 0)
      : ratio_(ratio),
        slow_rate_(slow_rate),
        slow_factor_(slow_factor),
        sigma_(sigma),
        wild_rate_(wild_rate),
        rng_(seed) {}

  SampleOutcome Run(int arm) override {
    std::normal_distribution<double> noise(0, sigma_);
    std::uniform_real_distribution<double> uniform(0, 1);
    double value = 100.0 * std::exp(noise(rng_));
    if (wild_rate_ > 0 && uniform(rng_) < wild_rate_) value *= 2.5;
    if (arm == 1) {
      value *= ratio_;
      if (uniform(rng_) < slow_rate_) value *= slow_factor_;
    }
    SampleOutcome outcome;
    outcome.ok = true;
    outcome.value = value;
    return outcome;
  }

 private:
  double ratio_, slow_rate_, slow_factor_, sigma_, wild_rate_;
  std::mt19937_64 rng_;
};

}  // namespace culprit
