#pragma once

// Override sets: the environment changes a probe applies to one arm, to test a
// hypothesis ("force PARALLEL=1") on the same build. Values are passed to the
// child verbatim through its environment, never through a shell.

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// A named set from the configuration ([overrides.NAME], read by
/// overrides/override_config.h): what it changes and the hypothesis it tests.
struct NamedOverride {
  std::string name;  ///< Without '=' (--override tells NAME from K=V by it).
  std::map<std::string, std::string> env;
  std::vector<std::string> unset;
  std::string hypothesis;
};

/// The environment changes of one arm, with where they came from.
struct OverrideSet {
  std::map<std::string, std::string> set;  ///< K=V to set.
  std::vector<std::string> unset;          ///< K to remove, sorted, no duplicates.
  /// From named sets (joined with "; " if several) or given by --hypothesis.
  std::string hypothesis;
  std::vector<std::string> names;  ///< Named sets used, in the order given, for records.

  /// A short column label: "PARALLEL=1", "PARALLEL=1 -FOO" (sets in name order,
  /// then unsets prefixed with '-'); "(none)" when empty.
  std::string Label() const;
  /// True when nothing is set or unset.
  bool empty() const;
};

/// Builds the set from command-line arguments. Each --override argument is
/// either K=V (K validated, V verbatim: it may be empty or contain '=') or the
/// NAME of a named set. Each --unset argument is a K.
/// Errors (Error::Usage): a bad variable name, an unknown named set (with
/// did-you-mean), the same variable set twice to different values (setting it
/// twice to one value is harmless and accepted), a variable both set and unset.
Result<OverrideSet> BuildOverrideSet(std::span<const std::string> override_args,
                                     std::span<const std::string> unset_args,
                                     const std::map<std::string, NamedOverride>& named);

/// The environment after applying `overrides` to `environment` (name -> value):
/// unsets are removed, sets are added or replaced.
std::map<std::string, std::string> ApplyOverrides(const OverrideSet& overrides,
                                                  std::map<std::string, std::string> environment);

}  // namespace culprit
