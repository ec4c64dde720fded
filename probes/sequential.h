#pragma once

// Sequential looks with alpha spending. A sitting measures pairs in batches and
// looks at the interval after each batch, stopping as soon as the verdict is
// decided. Looking repeatedly at the same growing sample and stopping at the
// first "significant" look inflates the error rate (five looks at 5% each give
// roughly 12% false effects on pure noise); spending a budget of alpha across
// the looks keeps the overall rate at the stated one.

#include <span>
#include <vector>

namespace culprit {

/// The pair counts at which a sitting looks: min_pairs, doubling, and max_pairs last, e.g.
/// {10, 20, 40, 80, 160} for (10, 160). An intermediate look closer than 1.5x to max_pairs is
/// dropped, e.g. (10, 100) gives {10, 20, 40, 100}: a look just before the last one would take
/// most of the remaining alpha from the last look and buy almost no chance of stopping early.
/// max_pairs <= min_pairs gives the single look {max_pairs}. Requires 1 <= min_pairs and
/// 1 <= max_pairs.
std::vector<int> LookSchedule(int min_pairs, int max_pairs);

/// Lan–DeMets O'Brien–Fleming-type spending function: the cumulative two-sided alpha spent by
/// information fraction t in [0, 1], 2 - 2 Φ(z_{1-α/2} / √t). It is 0 at t = 0 and α at t = 1,
/// and spends almost nothing early, so the final look keeps nearly the whole α.
double ObrienFlemingSpent(double alpha, double information_fraction);

/// Lan–DeMets Pocock-type spending function: α ln(1 + (e - 1) t). Spends evenly across looks,
/// so early looks can stop (with rank intervals, O'Brien–Fleming's first looks at 10 and 20
/// pairs of a 10..160 schedule ask for alphas below 1e-7, which no interval on so few pairs
/// reaches: those looks can never stop), at the price of a wider interval at the last look.
double PocockSpent(double alpha, double information_fraction);

/// Pocock's function on the square root of the information fraction: α ln(1 + (e − 1) √t).
/// Why: over a long schedule of close looks (the bisect's confirmation, 12 … 1280 pairs √2
/// apart) PocockSpent keeps most of α for the last few looks, which only a move at the
/// band's edge reaches: 0.0097 of 0.05 is spent by 160 pairs, 0.019 at 906 and 1280 alone,
/// where an 18% move at 24% noise stops at 56 to 226. On √t it is 0.024 by 160 and 0.010 at
/// the last two, so such a move stops a look sooner, and one near the band still finds
/// about a tenth of α at each late look (docs/statistics.md, "Spending on √t"). Any spending
/// fixed before the first pair keeps the overall α.
double PocockSpentOnRootTime(double alpha, double information_fraction);

/// Which spending function SpendAlpha uses.
enum class Spending {
  kObrienFleming,     ///< ObrienFlemingSpent: nearly all alpha kept for the last look (default).
  kPocock,            ///< PocockSpent: stops early on large effects.
  kPocockOnRootTime,  ///< PocockSpentOnRootTime: more of α where a long schedule's moves stop.
};

/// Nominal two-sided alpha to use at each look so that the overall error rate stays <= alpha.
/// Information fractions are t_k = looks[k] / looks.back() (for rank statistics information
/// grows linearly with the number of pairs), and look k gets the increment
/// α(t_k) - α(t_{k-1}) of the spending function (ObrienFlemingSpent unless told otherwise).
///
/// Why increments and not the exact group-sequential boundaries: by Bonferroni, P(any look
/// rejects) <= Σ P(look k rejects) <= Σ increments = α, whatever the correlation between the
/// looks, the discreteness of exact rank intervals or the distribution of the noise. It is
/// conservative (the looks are strongly correlated, so the real rate is below α), but always
/// valid. The increments sum to exactly alpha; with O'Brien–Fleming they grow from one look to
/// the next (for Pocock and a doubling schedule the first look gets more than the second). The
/// confidence to request at look k is 1 - result[k]; a look whose pairs are fewer than
/// MinPairsForSignedRank(1 - result[k]) cannot stop.
///
/// Requires alpha in (0, 1) and looks strictly increasing and positive.
std::vector<double> SpendAlpha(double alpha, std::span<const int> looks,
                               Spending spending = Spending::kObrienFleming);

/// The nominal two-sided α at each of `looks` that spends exactly `increments` (SpendAlpha's)
/// when the looks are read together instead of one at a time: for a statistic with
/// independent increments whose information grows with the pairs (the canonical joint
/// distribution of group-sequential tests, Jennison & Turnbull 2000, ch. 3 and 19; the
/// signed-rank and Hodges–Lehmann statistics have it asymptotically, Jennison & Turnbull ch. 13),
/// Z_k first crosses z_{1−a_k/2} at look k with probability increments[k] / 2, one side alone
/// (a wrong verdict at the band's edge is a crossing of one side). Computed by the recursive
/// numerical integration of Armitage, McPherson & Rowe (1969), the way Lan & DeMets (1983) turn
/// a spending function into boundaries. Why: Bonferroni over the increments (SpendAlpha) bounds
/// the overall rate whatever the correlation, but looks that share most of their pairs are
/// strongly correlated, so the rate it keeps is well below α (0.030 of 0.05 over 10…1280 by √2
/// with Pocock's spending); these boundaries keep α itself and stop sooner. a_k >= increments[k];
/// an increment of 0 (a look that may not stop) gives 0. Known answer: Pocock's spending over
/// 5 equally spaced looks at 0.05 gives z = 2.438, 2.427, 2.410, 2.397, 2.386 (Lan & DeMets'
/// published boundaries). Requires looks strictly increasing and positive, one increment per
/// look, each in [0, 1), summing below 1.
std::vector<double> GroupSequentialAlphas(std::span<const int> looks,
                                          std::span<const double> increments);

/// `looks` with its first look moved up, `step` pairs at a time, until a signed-rank interval
/// exists at the alpha SpendAlpha gives it (MinPairsForSignedRank(1 - increment) <= look).
/// Why: a 95% Pocock test over 10..640 pairs spends 0.0013 at 10 pairs, and no signed-rank
/// interval on 10 pairs reaches 99.87% (the smallest two-sided p on 10 pairs is 2/2^10, about
/// 0.002), so that look would spend alpha and could never stop; at 12 pairs it spends 0.0016
/// and stops once every pair is clear of the band. The first look is never moved to or past
/// the second one: when that would not be enough (O'Brien–Fleming's first looks) the looks
/// are returned as given. Requires the SpendAlpha preconditions and step >= 1.
std::vector<int> StoppableLooks(std::vector<int> looks, double alpha, Spending spending, int step);

}  // namespace culprit
