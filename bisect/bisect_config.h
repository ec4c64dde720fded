#pragma once

// [bisect] of culprit.toml: when the noise-aware search stops; and the parts
// of the file the bisect reads.

#include "base/config_reader.h"
#include "base/result.h"
#include "probes/probe_sections.h"

namespace culprit {

/// [bisect]
struct BisectConfig {
  double target_probability = 0.99;  ///< In (0, 1).
  int max_builds = 0;                ///< 0: automatic. All >= 0.
  int max_pairs = 0;                 ///< 0: automatic.
  int pairs_per_step = 0;            ///< 0: automatic.
  /// Changes searched for in one range (>= 1). After a change is verified, the parts of the
  /// range it does not explain are checked; a part that still moves the same way is searched
  /// like the whole range, until this many searches were made. A part left over is reported
  /// as unplaced, with its segment and its ratio, never silently dropped.
  int max_changes = 3;
  /// The most pairs of a sitting that asks whether a range moves: the endpoint confirmation,
  /// and each check of a part a verified change leaves unexplained (0: [measure] max_pairs).
  /// More than a probe's: a confirmed range is a dozen builds spent, a check decides whether
  /// a change may be called the first bad commit and whether another change is searched, and
  /// a move a little beyond the band on a noisy host needs several hundred pairs to be told
  /// from the band. Large moves and clear ties still stop at the first looks (10 to 40
  /// pairs). `bisect run --max-pairs N` sets both for one bisect.
  int confirm_max_pairs = 640;
};

/// Reads [bisect].
Status ReadBisectSection(const ConfigTable& root, BisectConfig* bisect);

/// What the bisect reads from the file: the probes' parts and [bisect].
struct BisectSections : ProbeSections {
  BisectConfig bisect;
};

}  // namespace culprit
