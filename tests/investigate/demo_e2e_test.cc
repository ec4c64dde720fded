// End to end: `culprit demo` on the bundled demo engine, exactly as a user
// runs it (1M events; minutes on 2 cores): `culprit investigate` on its history.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// The commit the bisect must name, by its subject in the demo history
// (examples/eventstore/history/COMMITS.md). Its id is read from the repository
// the demo generated, so regenerating the history needs no edit here.
constexpr const char* kIndexPersistingSubject =
    "Persist the traversal index with write-behind checkpoints";

// The ids of the commits of `repo` whose subject is `subject`, cut to 10 hex
// digits: the shortest id culprit prints, so a prefix of what it prints.
std::vector<std::string> CommitsWithSubject(const std::filesystem::path& repo,
                                            const std::string& subject) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", repo.string(), "log", "--format=%H %s"};
  spec.timeout = std::chrono::minutes(1);
  ProcessResult log = RunProcess(spec);
  EXPECT_TRUE(log.ok()) << log.Describe({}) << "\n" << log.stderr_text;
  std::vector<std::string> ids;
  std::istringstream lines(log.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.find(' ');
    if (space != std::string::npos && line.substr(space + 1) == subject) {
      ids.push_back(line.substr(0, 10));
    }
  }
  return ids;
}

ProcessResult RunDemo(const TempDir& dir) {
  ProcessSpec spec;
  spec.argv = {CulpritExe(), "demo", "--dir", (dir.path() / "demo").string()};
  spec.timeout = std::chrono::minutes(14);  // twice is below ctest's 30-minute limit
  spec.output_limit = 1 << 22;
  return RunProcess(spec);
}

// The isolate record of `commit` in `records`, or an empty object.
nlohmann::json IsolationOn(const std::filesystem::path& records, const std::string& commit) {
  for (const auto& entry : std::filesystem::directory_iterator(records)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    nlohmann::json record = nlohmann::json::parse(in);
    if (record["kind"] == "isolate" && !record["arms"].empty() &&
        record["arms"][0]["commit"].get<std::string>().starts_with(commit)) {
      return record;
    }
  }
  return nlohmann::json::object();
}

// Whether the demo's story stopped at the bisect because the host's own noise left it
// undecided, as it said (investigate/demo.h, UndecidedBisectStory). Issue 27 allows that ending
// ("or it says plainly which step the host's noise left undecided"); a bisect left undecided on
// a host that did not drift or stall is not allowed, and fails the test.
bool UndecidedByTheHost(const std::string& out) {
  return out.find("2. the bisect named no verified culprit on this host") != std::string::npos &&
         out.find("the host's own noise left the bisect undecided") != std::string::npos;
}

// The whole story, as a user runs it: `culprit investigate` on the demo
// history. The move is confirmed, the gate hypothesis is tested and never
// comes out an EFFECT (forcing PARALLEL=1 changes nothing), the bisect names
// the index-persisting commit, verifies it against its parent and finds it
// touches nothing on the query's code path, and the residency isolation on
// that commit names the traversal index as the cost (holding it is an
// EFFECT). Every step is archived and linked by one investigation record.
//
// A host that drifts or stalls during the bisect can leave it undecided (the development VM
// did in the README's test run of 2026-12-07: +11% during the verification). The demo says so,
// names nothing, and the test holds it to that; then it runs the demo once more, which must tell
// the whole story. Two such hosts in a row fail the test.
TEST(Demo, IsolatesTheIndexOfTheIndexPersistingCommit) {
  TempDir first, second;
  ProcessResult result = RunDemo(first);
  ASSERT_TRUE(result.ok()) << result.Describe({}) << "\nstdout:\n"
                           << result.stdout_text << "\nstderr:\n"
                           << result.stderr_text;
  const TempDir* ran = &first;
  if (UndecidedByTheHost(result.stdout_text)) {
    const std::string& undecided = result.stdout_text;
    std::cout << undecided << "\nthe host left the bisect undecided: the demo once more\n";
    EXPECT_NE(undecided.find("   INCONCLUSIVE: "), std::string::npos) << undecided;
    EXPECT_EQ(undecided.find("=> culprit "), std::string::npos) << undecided;
    EXPECT_EQ(undecided.find("=> change "), std::string::npos) << undecided;
    EXPECT_EQ(undecided.find("EFFECT, verified"), std::string::npos) << undecided;
    result = RunDemo(second);
    ran = &second;
    ASSERT_TRUE(result.ok()) << result.Describe({}) << "\nstdout:\n"
                             << result.stdout_text << "\nstderr:\n"
                             << result.stderr_text;
  }
  const TempDir& dir = *ran;
  const std::string& out = result.stdout_text;
  std::cout << out;  // the story and the time split, for the log
  size_t probe_line = out.find("PARALLEL=1");
  ASSERT_NE(probe_line, std::string::npos) << out;
  std::string probe = out.substr(probe_line, out.find('\n', probe_line) - probe_line);
  EXPECT_EQ(probe.find("EFFECT"), std::string::npos) << out;
  EXPECT_NE(out.find("=> confirmed: series.count.registry moved"), std::string::npos) << out;
  // First the seed's check: the published table's three queries, in the registry's order, at
  // v1.0 and v1.3 in one sitting; each row gets a reading (moved, a tie, or undecided within
  // the demo's cap), whatever this host measures.
  const size_t table = out.find("0. the seed's check: the published v1.0 table's queries");
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_LT(table, out.find("=> confirmed:")) << out;
  for (const char* row : {"path.traverse", "series.count", "interval.join"}) {
    const std::string reading = std::string("   ") + row;
    EXPECT_NE(out.find(reading, table), std::string::npos) << row << "\n" << out;
  }
  EXPECT_NE(out.find("table sitting"), std::string::npos) << out;
  EXPECT_NE(out.find("explain runs"), std::string::npos) << out;
  // The ladder's step lines are numbered as they run, each number once and in order: the
  // explains are 3.k (within the bisect's step; none without valgrind), relevance 4, the
  // isolations 5.k.
  const std::string& err = result.stderr_text;
  std::vector<std::string> steps = {
      "step 1: confirm",   "step 2.1: hypothesis", "step 3: bisect",     "step 3.1: explain",
      "step 4: relevance", "step 5.1: residency",  "step 5.2: residency"};
  if (out.find("valgrind not found") != std::string::npos) steps.erase(steps.begin() + 3);
  size_t at = 0;
  for (const std::string& step : steps) {
    const size_t found = err.find(step, at);
    EXPECT_NE(found, std::string::npos) << step << " (in order)\n" << err;
    if (found != std::string::npos) at = found;
  }
  EXPECT_EQ(err.find("step 3: explain"), std::string::npos) << err;
  // The bisect adopts step 1's sitting instead of confirming the same move again.
  EXPECT_NE(result.stderr_text.find("the move was confirmed by record"), std::string::npos)
      << result.stderr_text;
  EXPECT_EQ(result.stderr_text.find("confirming the move"), std::string::npos)
      << result.stderr_text;

  const std::vector<std::string> persisting =
      CommitsWithSubject(dir.path() / "demo" / "eventstore", kIndexPersistingSubject);
  ASSERT_EQ(persisting.size(), 1u)
      << "the demo history has no single commit \"" << kIndexPersistingSubject << "\"";
  const std::string& persisting_commit = persisting[0];
  EXPECT_TRUE(NamesVerifiedChange(out, persisting_commit)) << out;
  EXPECT_NE(out.find("EFFECT, verified"), std::string::npos) << out;
  EXPECT_NE(out.find("changed  src/index/index_persistence.cc"), std::string::npos) << out;
  // The culprit; or, on a host where the scan's "skip rows" commit costs beyond the band
  // (+7.8% on one 2-core VM, 2026-12-04), the bisect names that one its culprit, on the
  // scan's path, and the ladder goes on with this later change.
  const bool went_on = out.find("=> change " + persisting_commit) != std::string::npos;
  EXPECT_TRUE(went_on || out.find("=> culprit " + persisting_commit) != std::string::npos) << out;
  EXPECT_NE(out.find("touches nothing on"), std::string::npos) << out;

  // The isolation on the culprit names the index: holding it is the cost.
  std::filesystem::path records = dir.path() / "demo" / "benchmarks" / "results-v1";
  nlohmann::json isolation = IsolationOn(records, persisting_commit);
  ASSERT_FALSE(isolation.empty()) << "no isolate record on " << persisting_commit;
  for (const nlohmann::json& c : isolation["payload"]["conditions"]) {
    if (c["name"] == "index held") {
      EXPECT_EQ(c["verdict"], "EFFECT") << isolation["payload"].dump(1);
    }
  }
  EXPECT_NE(out.find(std::string("3. residency isolation 'traversal index on ") +
                     (went_on ? "change" : "culprit") + "': holding `traversal_index`"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("wall time"), std::string::npos) << out;

  // Then the published v1.0 table is audited at v1.3: the order factor (series.count after
  // path.traverse in one process, against series.count alone) is the resident index, a
  // slowdown beyond the band. The code and drift factors are whatever this host measures.
  EXPECT_NE(out.find("4. the audit of the published v1.0 table:"), std::string::npos) << out;
  EXPECT_NE(out.find("× order"), std::string::npos) << out;
  EXPECT_NE(out.find("audit sittings"), std::string::npos) << out;

  // Every sitting is archived: the confirmation (the bisect's too), the probe, the
  // bisect's steps, verification and result, two isolations, and the
  // investigation that links them all; then the audit and its factors' sittings.
  int files = 0, investigations = 0, audits = 0, tables = 0;
  size_t investigation_links = 0, audit_links = 0;
  for (const auto& entry : std::filesystem::directory_iterator(records)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::ifstream in(entry.path());
    nlohmann::json record = nlohmann::json::parse(in);
    if (record["kind"] == "investigation") {
      ++investigations;
      EXPECT_EQ(record["details"]["outcome"], "isolated") << record.dump(1);
      investigation_links = record["links"].size();
    }
    if (record["kind"] == "table") {
      ++tables;
      EXPECT_EQ(record["payload"]["rows"].size(), 3u) << record["payload"].dump(1);
    }
    if (record["kind"] == "audit") {
      ++audits;
      audit_links = record["links"].size();
      bool order_seen = false;
      for (const nlohmann::json& f : record["payload"]["factors"]) {
        if (f["name"] != "order") continue;
        order_seen = true;
        EXPECT_EQ(f["verdict"], "EFFECT") << record["payload"].dump(1);
        EXPECT_GT(f["low"].get<double>(), 1.0) << record["payload"].dump(1);
      }
      EXPECT_TRUE(order_seen) << record["payload"].dump(1);
    }
  }
  EXPECT_EQ(investigations, 1);
  EXPECT_EQ(audits, 1);
  EXPECT_GE(audit_links, 2u);  // the code and order sittings
  EXPECT_EQ(tables, 1);
  // The investigation links every record but itself, the table's and the audit's.
  EXPECT_EQ(investigation_links, static_cast<size_t>(files) - 1 - tables - (1 + audit_links));
  EXPECT_GE(files, 11) << records;
}

}  // namespace
}  // namespace culprit
