#pragma once

// `culprit demo`: the whole story on the bundled demo engine. It creates the
// engine's history (examples/eventstore/make-history), writes its culprit.toml,
// tests the plausible hypothesis with an override probe at the bad end (the
// recalibrated parallelism gate, on series.count: expected NULL), then bisects series.count as
// the registry measures it (after path.traverse, index resident) and names the
// culprit and its changed files, against the query's code path.

#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace culprit {

struct DemoOptions {
  std::filesystem::path work_dir = "culprit-demo";
  /// culprit's examples/ directory; empty: the source tree culprit was built from.
  std::filesystem::path examples_dir;
  int events = 0;  ///< 0: the demo config's own (1,000,000).
  std::string good = "v1.0", bad = "v1.3";
  /// The number that moved: series.count measured as the registry does.
  std::string query = "series.count.registry";
  /// Where the gate hypothesis is probed: the same scan in a fresh process.
  /// The gate's plan depends only on the row count, and without the resident
  /// index's background work the scan is less noisy, so a NULL settles sooner.
  std::string probe_query = "series.count";
};

class DemoReporter {
 public:
  virtual ~DemoReporter() = default;
  virtual void Line(const std::string& text) = 0;    ///< Progress (stderr).
  virtual void Result(const std::string& text) = 0;  ///< Findings (stdout).
};

struct DemoReport {
  std::string probe_verdict;
  std::string culprit_commit;  ///< Empty when the bisect named none.
  std::string culprit_subject;
  std::vector<std::string> changed_files;
  bool culprit_on_code_path = false;
  std::filesystem::path config_path;
};

Result<DemoReport> RunDemo(const DemoOptions& options, DemoReporter& reporter);

}  // namespace culprit
