#include "probes/table_check.h"

#include <fmt/format.h>

#include <cmath>

#include "base/strings.h"
#include "probes/log_interval.h"

namespace culprit {
namespace {

constexpr std::string_view kClaimLabelNames[] = {"holds",     "tie",           "reversed",
                                                 "undecided", "not published", "not checked"};
constexpr std::string_view kClaimSittingsNames[] = {"not stated", "one sitting",
                                                    "two unrelated numbers divided",
                                                    "cross-host: two hosts' numbers divided"};

/// +1 when the ratio is above 1, -1 below, 0 at exactly 1.
int Direction(double log_ratio) { return log_ratio > 0 ? 1 : log_ratio < 0 ? -1 : 0; }

/// The direction of an EFFECT: the side of 1 its interval lies on (the Hodges–Lehmann
/// interval, else the mean's when only the mean was beyond the band), else its estimate's.
int EffectDirection(const TableCell& cell) {
  const ShiftEstimate& s = *cell.shift;
  if (s.low > 0) return 1;
  if (s.high < 0) return -1;
  if (cell.tails && cell.tails->mean) {
    if (cell.tails->mean->low > 0) return 1;
    if (cell.tails->mean->high < 0) return -1;
  }
  return Direction(s.estimate);
}

std::string Measured(const TableCell& cell) {
  if (!cell.shift) return "measured";
  const Estimate e = RatioEstimate(*cell.shift);
  return "measured ×" + FormatRatioInterval(e.ratio, e.low, e.high);
}

/// A claim holds by its direction; its size is said when the interval leaves it out.
std::string SizeNote(const TableCell& cell, double published_ratio) {
  if (!cell.shift) return "";
  const Estimate e = RatioEstimate(*cell.shift);
  if (published_ratio >= e.low && published_ratio <= e.high) return "";
  return fmt::format(" (its size is not: ×{:.3f} is outside the interval)", published_ratio);
}

}  // namespace

int PublishedGrid::Row(const std::string& query) const {
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r] == query) return static_cast<int>(r);
  }
  return -1;
}

std::string_view ClaimLabelName(ClaimLabel label) { return NameIn(kClaimLabelNames, label); }

void PrintTo(ClaimLabel label, std::ostream* out) { *out << ClaimLabelName(label); }

std::string_view ClaimSittingsName(ClaimSittings sittings) {
  return NameIn(kClaimSittingsNames, sittings);
}

ClaimSittings SittingsOf(const PublishedCell& baseline, const PublishedCell& cell) {
  if (!baseline.host.empty() && !cell.host.empty() && baseline.host != cell.host) {
    return ClaimSittings::kCrossHost;
  }
  if (baseline.sitting.empty() || cell.sitting.empty()) return ClaimSittings::kUnknown;
  return baseline.sitting == cell.sitting ? ClaimSittings::kSame : ClaimSittings::kDifferent;
}

Claim LabelClaim(const PublishedCell& baseline, const PublishedCell& cell,
                 const TableCell& measured) {
  Claim claim;
  claim.sittings = SittingsOf(baseline, cell);
  if (!baseline.value || !cell.value) {
    claim.label = ClaimLabel::kNotPublished;
    claim.explanation = !baseline.value ? "the published table has no baseline value here"
                                        : "the published table has no value here";
    return claim;
  }
  const double ratio = *cell.value / *baseline.value;
  claim.published_ratio = ratio;
  const int published = Direction(std::log(ratio));
  const std::string published_text = fmt::format("published ×{:.3f}", ratio);
  if (measured.status == CellStatus::kNotMeasured) {
    claim.label = ClaimLabel::kNotChecked;
    claim.explanation = "not measured: " + measured.error;
    return claim;
  }
  if (!measured.verdict || measured.status != CellStatus::kMeasured) {
    claim.label = ClaimLabel::kNotChecked;
    claim.explanation = "the cell has no verdict";
    return claim;
  }
  const std::string now = Measured(measured);
  switch (measured.verdict->verdict) {
    case Verdict::kNull:
      claim.label = published == 0 ? ClaimLabel::kHolds : ClaimLabel::kTie;
      claim.explanation =
          published == 0
              ? fmt::format("{}, {}: a tie, as published", published_text, now)
              : fmt::format("{}, {}: inside the band, a tie to relabel", published_text, now);
      return claim;
    case Verdict::kEffect: {
      const int direction = measured.shift ? EffectDirection(measured) : 0;
      claim.label = direction == published ? ClaimLabel::kHolds : ClaimLabel::kReversed;
      claim.explanation =
          claim.label == ClaimLabel::kHolds
              ? fmt::format("{}, {}: beyond the band, the same way{}", published_text, now,
                            SizeNote(measured, ratio))
          : published == 0
              ? fmt::format("{}, {}: published equal, measured beyond the band", published_text,
                            now)
              : fmt::format("{}, {}: beyond the band the other way", published_text, now);
      return claim;
    }
    default:
      claim.label = ClaimLabel::kUndecided;
      claim.explanation =
          fmt::format("{}, {}: {}", published_text, now, measured.verdict->explanation);
      return claim;
  }
}

std::vector<Claim> CheckClaims(const PublishedGrid& published, const std::vector<std::string>& rows,
                               const std::vector<std::vector<TableCell>>& cells) {
  std::vector<Claim> claims;
  for (size_t r = 0; r < rows.size() && r < cells.size(); ++r) {
    const int p = published.Row(rows[r]);
    if (p < 0) continue;
    const std::vector<PublishedCell>& values = published.cells[p];
    for (size_t a = 1; a < cells[r].size() && a < values.size(); ++a) {
      Claim claim = LabelClaim(values[0], values[a], cells[r][a]);
      claim.row = static_cast<int>(r);
      claim.arm = static_cast<int>(a);
      claims.push_back(std::move(claim));
    }
  }
  return claims;
}

bool AnyClaimFails(const std::vector<Claim>& claims) {
  for (const Claim& c : claims) {
    if (c.label == ClaimLabel::kTie || c.label == ClaimLabel::kReversed) return true;
  }
  return false;
}

}  // namespace culprit
