// `culprit table` as a user types it: ad-hoc commands with no culprit.toml, rows from a
// {query} placeholder, output formats, and the record read back by `culprit records`.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

const std::string kEngine = FixturePath("table_engine");

TEST(TableCli, AdHocCommandsWithAQueryPlaceholderMakeATable) {
  TempDir dir;
  // Two engines as two command lines: the second does three times the work on q2 only.
  ProcessResult r =
      RunCulprit({"table",  "-q",      "q1",     "-q",    "q2",      "--max-pairs", "40",
                  "--seed", "3",       "--name", "ours",  "--name",  "theirs",      "--",
                  kEngine,  "{query}", "--",     kEngine, "{query}", "--slow-on",   "q2"},
                 dir.path());
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "this sitting's medians")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "Bonferroni over 2 cells")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "ad-hoc commands, run as given")) << DescribeRun(r);
  std::vector<Record> records = RecordStore(dir.path() / "benchmarks/results-v1").List().records;
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  const Record& record = records[0];
  EXPECT_EQ(record.kind, RecordKind::kTable);
  EXPECT_EQ(record.query, "q1,q2");
  ASSERT_EQ(record.arms.size(), 4u);
  EXPECT_EQ(record.arms[3].name, "q2 · theirs");
  EXPECT_EQ(record.arms[3].command, (std::vector<std::string>{kEngine, "q2", "--slow-on", "q2"}));

  // The record reads back through `records list`, `show` and `report`.
  ProcessResult list =
      RunCulprit({"records", "--dir", "benchmarks/results-v1", "list"}, dir.path());
  ASSERT_EQ(list.exit_code, 0) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stdout_text, "table")) << DescribeRun(list);
  ProcessResult show =
      RunCulprit({"records", "--dir", "benchmarks/results-v1", "show", record.id}, dir.path());
  ASSERT_EQ(show.exit_code, 0) << DescribeRun(show);
  EXPECT_TRUE(Contains(show.stdout_text, "this sitting's medians")) << DescribeRun(show);
  EXPECT_TRUE(Contains(show.stdout_text, "EFFECT")) << DescribeRun(show);
  ProcessResult report =
      RunCulprit({"records", "--dir", "benchmarks/results-v1", "report", record.id}, dir.path());
  ASSERT_EQ(report.exit_code, 0) << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "## Table")) << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "| query |")) << DescribeRun(report);
}

TEST(TableCli, ShellLinesAFailingCommandAndCsv) {
  TempDir dir;
  // One word with a blank is a shell line, as hyperfine takes it. The third command fails:
  // its cell is not measured, the table is still printed and archived, and the exit is 1.
  ProcessResult r =
      RunCulprit({"table", "--format", "csv", "--max-pairs", "20", "--", kEngine + " q1", "--",
                  kEngine + " q1", "--", kEngine + " q1 --fail-on q1"},
                 dir.path());
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "query,arm,status,verdict,ratio")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "command,table_engine-3,not measured")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "no such query")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "command,table_engine-2,measured,")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "1 cell of the table could not be measured"))
      << DescribeRun(r);
  EXPECT_EQ(RecordStore(dir.path() / "benchmarks/results-v1").List().records.size(), 1u);
}

// <dir>/culprit.toml: queries q1, q2, q3, each the fixture engine's query of that name,
// records in <dir>/records, and `more` (sections) after them.
void WriteThreeQueries(const TempDir& dir, const std::string& more) {
  WriteTextFile(dir.path() / "culprit.toml",
                fmt::format("[queries.q1]\ncommand = [\"{0}\", \"q1\"]\n"
                            "[queries.q2]\ncommand = [\"{0}\", \"q2\"]\n"
                            "[queries.q3]\ncommand = [\"{0}\", \"q3\"]\n"
                            "[records]\ndir = \"records\"\n",
                            kEngine) +
                    more);
}

TEST(TableCli, OtherEnginesAreColumnsRunByTheirOwnCommands) {
  TempDir dir;
  // Our engine is the working tree's queries; "theirs" does three times the work on q2;
  // "partial" has a command for q1 only.
  WriteThreeQueries(dir, fmt::format(R"x([engines.theirs]
command = ["{0}", "{{query}}", "--slow-on", "q2"]
[engines.partial]
queries = {{ q1 = ["{0}", "q1"] }}
)x",
                                     kEngine));
  ProcessResult r = RunCulprit({"table", "--engine", "theirs", "--engine", "partial", "--format",
                                "csv", "--max-pairs", "40", "--seed", "3"},
                               dir.path());
  // A cell of "partial" is not measured: exit 1, and the rest of the table is kept.
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q2,theirs,measured,EFFECT,")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q1,partial,measured,")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q2,partial,not measured")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "engine partial has no command for query q2"))
      << DescribeRun(r);
  std::vector<Record> records = RecordStore(dir.path() / "records").List().records;
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  const Record& record = records[0];
  ASSERT_EQ(record.arms.size(), 9u);
  EXPECT_EQ(record.arms[4].name, "q2 · theirs");
  EXPECT_EQ(record.arms[4].command, (std::vector<std::string>{kEngine, "q2", "--slow-on", "q2"}));
  EXPECT_TRUE(record.arms[4].revision.empty());
  bool noted = false;
  for (const std::string& note : record.notes)
    noted |= Contains(note, "column theirs: another engine");
  EXPECT_TRUE(noted) << ::testing::PrintToString(record.notes);

  // An engine the file does not describe, and --engine beside ad-hoc commands.
  ProcessResult unknown = RunCulprit({"table", "--engine", "their"}, dir.path());
  EXPECT_EQ(unknown.exit_code, 2) << DescribeRun(unknown);
  EXPECT_TRUE(Contains(unknown.stderr_text, "--engine their:")) << DescribeRun(unknown);
  EXPECT_TRUE(Contains(unknown.stderr_text, "did you mean 'theirs'")) << DescribeRun(unknown);
  ProcessResult mixed = RunCulprit(
      {"table", "--engine", "theirs", "--", kEngine + " q1", "--", kEngine + " q1"}, dir.path());
  EXPECT_EQ(mixed.exit_code, 2) << DescribeRun(mixed);
  EXPECT_TRUE(Contains(mixed.stderr_text, "--engine takes its commands from culprit.toml"))
      << DescribeRun(mixed);
}

TEST(TableCli, RegistryOrderRunsEachQueryAfterThoseBeforeIt) {
  TempDir dir;
  // The registry command runs the order in one process up to {query}; with SLOW set, each
  // query before the measured one does three times its work ("{{" is a literal brace
  // there). Alone, q2 is untouched by SLOW; in the registry's order it pays for q1 run slow
  // before it (about 2x by wall time).
  const std::string script = fmt::format(
      "for q in q1 q2 q3; do if [ \"$q\" = \"$1\" ]; then exec {0} \"$q\"; fi; "
      "{0} \"$q\" ${{{{SLOW:+--slow-on $q}}}} >/dev/null; done",
      kEngine);
  WriteThreeQueries(dir, fmt::format(R"x([registry]
order = ["q1", "q2", "q3"]
command = ["sh", "-c", '{0}', "registry", "{{query}}"]
)x",
                                     script));
  ProcessResult r =
      RunCulprit({"table", "--order", "registry", "-q", "q1", "-q", "q2", "--arm", "default",
                  "--arm", "slow:SLOW=1", "--format", "csv", "--max-pairs", "40", "--seed", "3"},
                 dir.path());
  EXPECT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q2,slow,measured,EFFECT,")) << DescribeRun(r);
  std::vector<Record> records = RecordStore(dir.path() / "records").List().records;
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  const Record& record = records[0];
  EXPECT_EQ(record.details.at("order"), "registry");
  // Each cell ran the registry command for its row.
  ASSERT_EQ(record.arms.size(), 4u);
  EXPECT_EQ(record.arms[2].command.back(), "q2");
  EXPECT_EQ(record.arms[2].command.front(), "sh");
  bool said = false;
  for (const std::string& note : record.notes) {
    said |= Contains(note, "in [registry] order, one process per run") &&
            Contains(note, "q2 after q1") && Contains(note, "(q1 runs first)");
  }
  EXPECT_TRUE(said) << ::testing::PrintToString(record.notes);

  // A query outside the order, other engines beside it, and a file without [registry].
  ProcessResult outside = RunCulprit({"table", "--order", "registry", "-q", "q4"}, dir.path());
  EXPECT_EQ(outside.exit_code, 2) << DescribeRun(outside);
  WriteTextFile(dir.path() / "plain.toml",
                fmt::format("[queries.q1]\ncommand = [\"{}\", \"q1\"]\n", kEngine));
  ProcessResult none = RunCulprit(
      {"--config", "plain.toml", "table", "--order", "registry", "--arm", "default"}, dir.path());
  EXPECT_EQ(none.exit_code, 2) << DescribeRun(none);
  EXPECT_TRUE(Contains(none.stderr_text, "--order registry needs [registry] order and command"))
      << DescribeRun(none);
}

TEST(TableCli, UsageErrorsSayWhatATableNeeds) {
  TempDir dir;
  ProcessResult one = RunCulprit({"table", "--", kEngine, "q1"}, dir.path());
  EXPECT_EQ(one.exit_code, 2) << DescribeRun(one);
  EXPECT_TRUE(Contains(one.stderr_text, "at least two columns")) << DescribeRun(one);
  ProcessResult rows = RunCulprit({"table", "-q", "q1", "--", "a", "--", "b"}, dir.path());
  EXPECT_EQ(rows.exit_code, 2) << DescribeRun(rows);
  EXPECT_TRUE(Contains(rows.stderr_text, "needs {query}")) << DescribeRun(rows);
  ProcessResult placeholder = RunCulprit({"table", "--", "a", "{query}", "--", "b"}, dir.path());
  EXPECT_EQ(placeholder.exit_code, 2) << DescribeRun(placeholder);
  EXPECT_TRUE(Contains(placeholder.stderr_text, "no -q")) << DescribeRun(placeholder);
  ProcessResult empty = RunCulprit({"table", "--", "a", "--", "--", "b"}, dir.path());
  EXPECT_EQ(empty.exit_code, 2) << DescribeRun(empty);
  ProcessResult names = RunCulprit({"table", "--name", "x", "--", "a", "--", "b"}, dir.path());
  EXPECT_EQ(names.exit_code, 2) << DescribeRun(names);
  EXPECT_TRUE(Contains(names.stderr_text, "name every column or none")) << DescribeRun(names);
}

}  // namespace
}  // namespace culprit
