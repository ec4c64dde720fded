#include "bisect/segment_payloads.h"

#include <cmath>

namespace culprit {

BisectChangePayload ChangePayload(const BisectSegment& c, const std::vector<std::string>& commits) {
  BisectChangePayload p;
  p.commit = commits[c.change];
  p.direction =
      c.check == SegmentCheck::kOpposite ? ChangeDirection::kOther : ChangeDirection::kRange;
  p.first_commit = commits[c.first];
  p.parent_commit = commits[c.first - 1];
  p.ratio = std::exp(c.log_ratio);
  p.low = std::exp(c.log_low);
  p.high = std::exp(c.log_high);
  p.confidence = c.verify_confidence;
  p.pairs = c.verification_pairs;
  p.probability = c.probability;
  return p;
}

BisectSegmentPayload SegmentPayload(const BisectSegment& s,
                                    const std::vector<std::string>& commits) {
  BisectSegmentPayload p;
  p.good_commit = commits[s.lo];
  p.bad_commit = commits[s.hi];
  p.lo = s.lo;
  p.hi = s.hi;
  p.check = SegmentCheckName(s.check);
  p.outcome = SegmentOutcomeName(s.outcome);
  p.ratio = s.ratio;
  p.low = s.low;
  p.high = s.high;
  p.confidence = s.confidence;
  p.pairs = s.pairs;
  p.check_record = s.check_record;
  p.reason = s.reason;
  p.tie_sought = s.tie_sought;
  p.tie_pairs_needed = s.tie_pairs_needed;
  p.tie_budget = s.tie_budget;
  p.further_move = {s.alternative, s.ruled_out, s.rule_out_pairs_needed, s.small_move_suspected};
  p.recheck = SegmentCheckName(s.recheck);
  p.recheck_record = s.recheck_record;
  return p;
}

BisectDecompositionPayload DecompositionPayload(const Decomposition& d) {
  return {d.total.log_ratio,
          d.total.low,
          d.total.high,
          d.remainder.log_ratio,
          d.remainder.low,
          d.remainder.high,
          d.remainder_class == RemainderClass::kTie      ? "tie"
          : d.remainder_class == RemainderClass::kBeyond ? "beyond"
                                                         : "undecided"};
}

}  // namespace culprit
