#pragma once

// Instructions and simulated data-cache misses of a query's process tree, counted by
// valgrind's cachegrind: the source of `"ll_misses"` and `"d1_misses"` always, and of
// `metric = "instructions"` on a host where no hardware instruction counter opens (or when
// CULPRIT_INSTRUCTIONS=cachegrind; engine/metric_source.h decides and names the source of
// each). One run is the query's command under
//   valgrind --tool=cachegrind --cache-sim=no|yes --trace-children=yes
//            --cachegrind-out-file=DIR/cachegrind.out.%p --log-file=DIR/valgrind.%p.log
// with DIR a temporary directory made for that run and removed after it; the figure is the
// sum, over every out file of the tree (one per process: a fork is a new pid; an exec keeps
// its pid, and the image it replaced writes no file), of the events the metric names, read
// from each file's `events:` and `summary:` lines. The cache model is fixed
// (kCachegrindCaches), not the host's, so that a count means the same on every host.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/metric.h"
#include "engine/metric_source.h"  // MetricSourceName: what counted a record's metric.
#include "engine/process.h"

namespace culprit {

/// The caches cachegrind simulates for ll_misses and d1_misses, as valgrind's options: a
/// 32 KiB 8-way first-level data cache and an 8 MiB 16-way last level, 64-byte lines (a
/// common desktop part). Fixed so that a count does not depend on what the host reports: a
/// virtual machine here reports an L3 of 480 MiB, in which nothing but a cold line misses.
inline constexpr std::string_view kCachegrindCaches[] = {"--I1=32768,8,64", "--D1=32768,8,64",
                                                         "--LL=8388608,16,64"};

/// Whether `kind` is one of kCachegrindMetrics: counted by a run of its own, never read
/// from an ordinary run. ll_misses and d1_misses always run under cachegrind; instructions
/// do unless a hardware counter counts them here (MetricSourceOf, engine/metric_source.h).
bool IsCachegrindMetric(MetricRule::Kind kind);

/// The cachegrind events whose counts make `kind`'s figure, summed: Ir for instructions
/// (every instruction executed in user space, of the program and its libraries); DLmr + DLmw
/// for ll_misses (last-level misses of data reads and writes; instruction fetches, ILmr, are
/// left out); D1mr + D1mw for d1_misses. Empty for a kind that is not a cachegrind metric.
std::vector<std::string_view> CachegrindEvents(MetricRule::Kind kind);

/// Where valgrind is: `program` as given when it holds a '/', else the first executable of
/// that name in `search_path` (a PATH value; nullopt: culprit's own PATH). Error when there
/// is none, naming the metric that needs it and how to install it (`apt install valgrind`).
/// Looks at the file system only; nothing is run.
Result<std::filesystem::path> FindValgrind(
    MetricRule::Kind kind, std::string_view program = "valgrind",
    std::optional<std::string_view> search_path = std::nullopt);

/// `valgrind --version` of the valgrind at `path` ("valgrind-3.19.0"), or why it did not say.
Result<std::string> ValgrindVersion(const std::filesystem::path& path);

/// Every event count of one out file, by name, from its `events:` line and its `summary:`
/// line (one count per event, in that order). Errors name what is missing or malformed.
Result<std::map<std::string, uint64_t>> ParseCachegrindSummary(std::string_view out_file);

/// `kind`'s figure from the summed event counts of a tree (CachegrindEvents); an event the
/// counts lack is an error (cachegrind ran without the cache simulation the metric needs).
/// A figure of 0 is an error too: a ratio needs a positive number.
Result<double> CachegrindFigure(MetricRule::Kind kind,
                                const std::map<std::string, uint64_t>& counts);

/// The command line that runs `argv` under cachegrind for `kind`, writing its out files and
/// logs into `dir`.
std::vector<std::string> CachegrindArgv(const std::filesystem::path& valgrind,
                                        MetricRule::Kind kind, const std::filesystem::path& dir,
                                        const std::vector<std::string>& argv);

/// Refuses a cachegrind metric for a query measured in-process, by a long-lived harness
/// (docs/harness.md: `culprit isolate`): valgrind counts whole processes, and every run of
/// every condition shares the one harness process, so no run has a count of its own. The
/// error says so and what works instead: the same query as a process per run (`culprit
/// probe`, `compare`, `run`). Ok for every other metric.
Status CheckInProcessMetric(MetricRule::Kind kind, std::string_view query);

/// One run of a query under cachegrind.
struct CachegrindRun {
  /// valgrind's run of the command: its exit status is the command's, its stdout and stderr
  /// the command's (valgrind's own messages go to its log files); its wall time and resource
  /// figures are of the simulation, many times the command's own.
  ProcessResult process;
  std::optional<double> value;  ///< The figure, when the run succeeded and had one.
  /// Why there is no value: how the run ended with valgrind's last words, or that no out
  /// file was written, or what the out files lack. "" when there is a value.
  std::string failure;
  /// The text of every out file of the tree (one per process), in file-name order, read
  /// before the directory went: per-function counts for `culprit explain`
  /// (engine/function_profile.h). Empty when the run failed before any was read.
  std::vector<std::string> out_files;
};

/// Runs `spec` under the valgrind at `valgrind` for `kind` (IsCachegrindMetric), in a
/// temporary directory of its own (removed before returning), and reads the figure. Never
/// falls back to another figure: a run that fails under valgrind has no value.
CachegrindRun RunUnderCachegrind(const ProcessSpec& spec, MetricRule::Kind kind,
                                 const std::filesystem::path& valgrind = "valgrind");

}  // namespace culprit
