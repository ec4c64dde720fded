#pragma once

// The fuzz targets' corpus replayed through their entry points, shared by the
// in-process suite (tests/fuzz/fuzz_corpus_test.cc, unit lane) and the one
// whose targets talk to a child process (fuzz_corpus_integration_test.cc).

#include <filesystem>

namespace culprit {

/// bench/fuzz in the source tree: corpus/<target>/ and regressions/<target>/.
std::filesystem::path FuzzDir();

/// Runs every seed and every past crash of each target whose
/// `spawns_processes` equals the argument; a throw or a target without seeds
/// is a test failure.
void ReplayFuzzCorpus(bool spawns_processes);

/// Runs an empty input and a short binary one through those targets.
void RunEmptyAndBinaryFuzzInputs(bool spawns_processes);

}  // namespace culprit
