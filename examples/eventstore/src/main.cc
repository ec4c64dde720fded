// eventstore: a small bi-temporal event store, the demo engine of culprit.
//
//   eventstore bench --query Q [--events N] [--reps R] [--warmup W] [--seed S]
//   eventstore serve [--events N] [--seed S]
//   eventstore registry [--events N] [--reps R] [--only Q] [--seed S]

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "scan/parallel_gate.h"
#include "session/harness.h"
#include "session/session.h"

namespace eventstore {
namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  eventstore bench --query Q [--events N] [--reps R] [--warmup W] [--seed S]\n"
    "      run query Q R times in one process; print each time and median_ms=...\n"
    "  eventstore serve [--events N] [--seed S]\n"
    "      speak the harness protocol on stdin/stdout (hold, release, run, quit)\n"
    "  eventstore registry [--events N] [--reps R] [--only Q] [--seed S]\n"
    "      run the registry's queries in order in one process (path.traverse first);\n"
    "      --only Q measures Q alone, after running the queries before it untimed\n"
    "queries: path.traverse, series.count, interval.join\n"
    "environment: PARALLEL=1 forces parallel scans, PARALLEL=0 forces serial ones\n";

struct Options {
  std::string query;
  std::string only;
  uint64_t seed = 42;
  size_t events = 1'000'000;
  long reps = 10;
  long warmup = 1;
};

int UsageError(const std::string& message) {
  std::cerr << "eventstore: " << message << "\n" << kUsage;
  return 2;
}

bool ParseNumber(const std::string& text, long min, long max, long* out) {
  try {
    size_t used = 0;
    const long value = std::stol(text, &used);
    if (used != text.size() || value < min || value > max) return false;
    *out = value;
    return true;
  } catch (...) {
    return false;
  }
}

// Parses "--flag value" pairs after the subcommand. Returns an error message,
// empty on success.
std::string ParseOptions(const std::vector<std::string>& args, const std::string& allowed,
                         Options* options) {
  for (size_t i = 0; i < args.size(); i += 2) {
    const std::string& flag = args[i];
    if (flag.rfind("--", 0) != 0 || allowed.find(" " + flag.substr(2) + " ") == std::string::npos) {
      return "unknown option '" + flag + "' for this command";
    }
    if (i + 1 >= args.size()) return "option " + flag + " needs a value";
    const std::string& value = args[i + 1];
    long number = 0;
    if (flag == "--query") {
      options->query = value;
    } else if (flag == "--only") {
      options->only = value;
    } else if (flag == "--events") {
      if (!ParseNumber(value, 1, 20'000'000, &number)) return "--events needs 1..20000000";
      options->events = static_cast<size_t>(number);
    } else if (flag == "--reps") {
      if (!ParseNumber(value, 1, 100'000, &number)) return "--reps needs 1..100000";
      options->reps = number;
    } else if (flag == "--warmup") {
      if (!ParseNumber(value, 0, 1000, &number)) return "--warmup needs 0..1000";
      options->warmup = number;
    } else if (flag == "--seed") {
      if (!ParseNumber(value, 0, 1L << 62, &number)) return "--seed needs a whole number";
      options->seed = static_cast<uint64_t>(number);
    }
  }
  return "";
}

bool KnownQuery(const std::string& query) {
  const std::vector<std::string>& names = Session::QueryNames();
  return std::find(names.begin(), names.end(), query) != names.end();
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016" PRIx64, value);
  return text;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs `query` `reps` times; returns the times and the last run.
bool Measure(Session& session, const std::string& query, long reps, std::vector<double>* times,
             QueryRun* last) {
  std::string error;
  for (long r = 0; r < reps; ++r) {
    if (!session.Run(query, last, &error)) {
      std::cerr << "eventstore: " << error << "\n";
      return false;
    }
    times->push_back(last->ms);
  }
  return true;
}

int Bench(const Options& options) {
  if (options.query.empty()) return UsageError("bench needs --query");
  if (!KnownQuery(options.query)) return UsageError("unknown query '" + options.query + "'");
  Session session(StoreOptions{options.seed, options.events, 0});
  const ScanPlan plan = PlanScan(options.events);
  std::cerr << "eventstore: " << options.events << " events; scans use " << plan.threads
            << " thread(s): " << plan.reason << "\n";
  std::vector<double> ignored, times;
  QueryRun run;
  if (!Measure(session, options.query, options.warmup, &ignored, &run)) return 1;
  if (!Measure(session, options.query, options.reps, &times, &run)) return 1;
  for (size_t r = 0; r < times.size(); ++r) std::printf("rep=%zu ms=%.4f\n", r + 1, times[r]);
  std::printf("median_ms=%.4f checksum=%s %s\n", Median(times), Hex(run.checksum).c_str(),
              run.summary.c_str());
  return 0;
}

int Registry(const Options& options) {
  if (!options.only.empty() && !KnownQuery(options.only)) {
    return UsageError("unknown query '" + options.only + "'");
  }
  Session session(StoreOptions{options.seed, options.events, 0});
  for (const std::string& query : Session::QueryNames()) {
    std::vector<double> times;
    QueryRun run;
    const bool measured = options.only.empty() || options.only == query;
    // Queries before the measured one still run (once, untimed), so the
    // measured one sees the process in the state the full registry leaves it.
    if (!Measure(session, query, measured ? options.reps : 1, &times, &run)) return 1;
    if (measured) {
      std::printf("%s median_ms=%.4f checksum=%s %s\n", query.c_str(), Median(times),
                  Hex(run.checksum).c_str(), run.summary.c_str());
      std::fflush(stdout);
    }
    if (query == options.only) break;
  }
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) return UsageError("missing command");
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  Options options;
  std::string error;
  if (command == "bench") {
    error = ParseOptions(args, " query events reps warmup seed ", &options);
    return error.empty() ? Bench(options) : UsageError(error);
  }
  if (command == "serve") {
    error = ParseOptions(args, " events seed ", &options);
    if (!error.empty()) return UsageError(error);
    Session session(StoreOptions{options.seed, options.events, 0});
    return Serve(session, std::cin, std::cout, std::cerr);
  }
  if (command == "registry") {
    error = ParseOptions(args, " events reps only seed ", &options);
    return error.empty() ? Registry(options) : UsageError(error);
  }
  return UsageError("unknown command '" + command + "'");
}

}  // namespace
}  // namespace eventstore

int main(int argc, char** argv) {
  try {
    return eventstore::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "eventstore: " << e.what() << "\n";
    return 1;
  }
}
