#pragma once

// Every exit status culprit can end with, in one table (docs/usage.md lists
// them for users). Two vocabularies: culprit's own, and git bisect's for
// `culprit judge`, whose caller reads 1 as "bad" and 125 as "skip".

namespace culprit {

inline constexpr int kExitOk = 0;
/// Something failed (a build, a broken sitting, an unwritable archive).
inline constexpr int kExitFailure = 1;
/// The command line or the configuration is wrong; nothing was measured.
inline constexpr int kExitUsage = 2;
/// The command's question was "is there an effect?" and the answer is yes
/// (probe, compare, isolate, table: an EFFECT); for `table --check`, whose
/// question is "does the published table still hold?": a claim that does not.
inline constexpr int kExitEffectFound = 3;
/// `culprit bisect run|resume` named no verified change: the move was not
/// reproduced, or not confirmed, or the search could not place it. A script
/// tells "no regression here" (4) from "culprit found" (0).
inline constexpr int kExitBisectNothingFound = 4;
/// The user (or CI) interrupted; what was measured is archived.
inline constexpr int kExitInterrupted = 130;

/// `culprit judge`, as `git bisect run` reads it.
inline constexpr int kJudgeGood = 0;
inline constexpr int kJudgeBad = 1;
/// The commit cannot be judged (does not build, its runs keep failing, the
/// sitting was inconclusive): git bisect skips it.
inline constexpr int kJudgeSkip = 125;
/// Stop the whole bisect (the reference is broken, a usage error): any code
/// from 128 up aborts `git bisect run`.
inline constexpr int kJudgeAbort = 128;

}  // namespace culprit
