#pragma once

// Where `culprit demo` finds the bundled demo engine: the examples/ directory
// that holds eventstore/ (its history script and patches, its sources, the
// culprit.toml.in template and the published v1.0 table). The rule, in order:
//   1. --examples DIR, when given: only there;
//   2. <directory of the running culprit>/../share/culprit/examples: an
//      installed culprit (`cmake --install`, the .deb), wherever its prefix is;
//   3. the examples/ of the source tree culprit was built from, only while the
//      running culprit is inside the build tree it was built in (a source
//      build run in place). An installed binary never looks at a build-time
//      path.
// The first place that holds every file the demo needs is used; when none
// does, the error names each place looked and what it lacked.

#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace culprit {

/// The facts the lookup depends on, so that the rule is testable without
/// installing anything.
struct DemoDataPlaces {
  std::filesystem::path explicit_dir;  ///< --examples; empty when not given.
  std::filesystem::path executable;    ///< The running culprit; empty when unknown.
  std::filesystem::path build_dir;     ///< The build tree culprit was built in.
  std::filesystem::path source_dir;    ///< The source tree culprit was built from.
};

/// The files under an examples/ directory that `culprit demo` reads.
inline constexpr const char* kDemoDataFiles[] = {
    "eventstore/make-history", "eventstore/history/patches", "eventstore/culprit.toml.in",
    "eventstore/published-v1.0.json"};

/// The places looked in, in order (rule above); none is checked on disk.
std::vector<std::filesystem::path> DemoExamplesCandidates(const DemoDataPlaces& places);

/// The first candidate that holds every file of kDemoDataFiles. Usage error
/// naming every place looked and the first file missing there.
Result<std::filesystem::path> FindDemoExamples(const DemoDataPlaces& places);

/// The running culprit's places: /proc/self/exe and the build and source
/// trees it was compiled in, with `explicit_dir` from the command line.
DemoDataPlaces RunningDemoDataPlaces(const std::filesystem::path& explicit_dir);

}  // namespace culprit
