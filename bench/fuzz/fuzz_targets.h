#pragma once

// The fuzz targets' entry points: each takes arbitrary bytes and must return
// without crashing, hanging, throwing or leaking, whatever they are. libFuzzer
// drives them (bench/fuzz/run builds them with clang); the test suite replays
// the seed corpus and every input that ever crashed one
// (tests/fuzz/fuzz_corpus_test.cc), so that a fixed crash stays fixed.

#include <span>
#include <string_view>

namespace culprit::fuzz {

/// culprit.toml text through the whole configuration loader (every section).
void Config(std::string_view data);
/// One line from an engine's harness, as the reply to a hold, a release and a run.
void HarnessReply(std::string_view data);
/// A record file through the record reader, and what it reads written back.
void RecordJson(std::string_view data);
/// An engine's stdout through the metric extraction; the first byte picks the
/// rule (a regex or a JSON path, as queries configure them).
void Metric(std::string_view data);
/// One name of a git tree entry through the checkout's check
/// (engine/tree_path.h), which must never accept a name that leaves the
/// directory or makes it a repository; aborts when it does.
void TreePath(std::string_view data);

/// A harness's reply stream through the reply line reader and its cap
/// (LineProcess::Request): a child, /bin/sh, writes the input's bytes, a few
/// lines in answer to each request, and every request must return the next
/// line, or "harness reply longer than N bytes" exactly when that line is
/// longer than the cap. The first byte picks the cap (1 to 64 bytes), the
/// second how many lines the child writes per request (1 to 4). Aborts on a
/// wrong reply. Keeps one child across inputs (a new one after a kill).
void HarnessLine(std::string_view data);

/// Ends the child HarnessLine keeps between inputs (the suite calls it, so
/// that no child outlives the replay; libFuzzer never does).
void StopChildren();

struct Target {
  const char* name;  ///< Also the folder of its corpus: bench/fuzz/corpus/<name>/.
  void (*run)(std::string_view data);
  /// Starts child processes: the suite replays it apart from the in-process
  /// targets (suite FuzzCorpusChildren, not FuzzCorpus).
  bool spawns_processes = false;
};

/// Every target, in a fixed order.
std::span<const Target> Targets();

}  // namespace culprit::fuzz
