#pragma once

// `culprit judge`: a `git bisect run` script that does not lie. It measures the
// checked-out commit's build against a reference build in one sitting and
// answers with git bisect's exit codes: 0 good (same as the reference, or
// faster), 1 bad (an EFFECT beyond the band, slower), 125 skip (the build
// failed, a run hung or crashed, or the sitting was INCONCLUSIVE). A hang or a
// crash is never "bad": git bisect would believe it.

#include <optional>
#include <string>

#include "base/exit_codes.h"  // kJudge*
#include "base/result.h"
#include "probes/measure_commands.h"
#include "probes/measurer.h"

namespace culprit {

struct JudgeRequest {
  std::string query;
  std::string reference;           ///< The known-good revision.
  std::string candidate = "HEAD";  ///< What git bisect checked out.
  MeasureFlags flags;
};

struct JudgeResult {
  int exit_code = kJudgeSkip;
  std::string reason;  ///< One line for the user (and git bisect's log).
  std::optional<ComparisonOutcome> outcome;
};

/// Builds both (through context.builds), measures them with `measurer`,
/// decides. Errors are only for what git bisect should not continue past (bad
/// configuration, an unbuildable reference, Ctrl-C).
Result<JudgeResult> RunJudge(const MeasureContext& context, Measurer& measurer,
                             const JudgeRequest& request);

}  // namespace culprit
