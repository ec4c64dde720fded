// investigate/explain_report.h and records/explain_payload.h on literal cachegrind out files:
// the two profiles put in the repository's terms, each function placed against the change
// and the query's path, the record and its payload read back, and the text that prints.

#include "investigate/explain_report.h"

#include <gtest/gtest.h>

#include <string>

#include "records/explain_payload.h"

namespace culprit {
namespace {

constexpr std::string_view kParent = R"(events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
360 12
fl=/home/u/.cache/culprit/e/scratch/src/hash.c
fn=Hash
5 1000007
fl=/home/u/.cache/culprit/e/scratch/src/scan.c
fn=Scan
5 600010
fl=/home/u/.cache/culprit/e/scratch/src/main.c
fn=main
4 8
summary: 1600037
)";

// Built elsewhere (another checkout): the same files under another directory.
constexpr std::string_view kChange = R"(events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
360 12
fl=/tmp/clean-x/hash.c
fn=Hash
5 2000007
fl=/tmp/clean-x/scan.c
fn=Scan
5 1200010
fl=/tmp/clean-x/main.c
fn=main
4 8
summary: 3200037
)";

ExplainInputs Inputs() {
  ExplainInputs in;
  in.query = "lookup";
  in.metric = "instructions";
  in.valgrind = "valgrind-3.19.0";
  in.parent.commit.id = std::string(40, 'a');
  in.parent.commit.short_id = "aaaaaaaaaa";
  in.change.commit.id = std::string(40, 'b');
  in.change.commit.short_id = "bbbbbbbbbb";
  in.change.commit.subject = "Hash every key twice";
  in.parent.profile = *ParseFunctionProfile(kParent);
  in.change.profile = *ParseFunctionProfile(kChange);
  in.parent.repository_files = {"hash.c", "scan.c", "main.c", "README"};
  in.change.repository_files = in.parent.repository_files;
  in.changed_files = {"hash.c"};
  in.parent.wall_ms = 900;
  in.change.wall_ms = 1100;
  return in;
}

TEST(ExplainReport, BuildsInDifferentDirectoriesNameTheSameRepositoryFiles) {
  ExplainFacts f = MakeExplainFacts(Inputs());
  ASSERT_EQ(f.functions.size(), 4u);
  EXPECT_EQ(f.functions[0].function, "Hash");
  EXPECT_EQ(f.functions[0].file, "hash.c");
  EXPECT_EQ(f.functions[0].Delta(), 1000000);
  EXPECT_EQ(f.functions[0].place, FunctionPlace::kTouched);
  EXPECT_EQ(f.functions[1].function, "Scan");
  EXPECT_EQ(f.functions[1].file, "scan.c");
  EXPECT_EQ(f.functions[1].place, FunctionPlace::kOnPath);  // The path from the profiles.
  EXPECT_EQ(f.functions[2].file, "./csu/../csu/libc-start.c");
  EXPECT_EQ(f.functions[2].place, FunctionPlace::kElsewhere);
  EXPECT_EQ(f.parent_instructions, 1600037u);
  EXPECT_EQ(f.change_instructions, 3200037u);
  EXPECT_NE(f.code_path.find("from the two profiles"), std::string::npos);
}

TEST(ExplainReport, AConfiguredPathDecidesWhatIsOnIt) {
  ExplainInputs in = Inputs();
  in.code_path.source = CodePath::Source::kGlobs;
  in.code_path.globs = {"hash.c", "main.c"};
  ExplainFacts f = MakeExplainFacts(in);
  EXPECT_EQ(f.functions[1].function, "Scan");
  EXPECT_EQ(f.functions[1].place, FunctionPlace::kElsewhere);  // Not in the globs.
  EXPECT_EQ(PlaceOf("main.c", true, in.changed_files, in.code_path), FunctionPlace::kOnPath);
  EXPECT_EQ(PlaceOf("hash.c", true, in.changed_files, in.code_path), FunctionPlace::kTouched);
  EXPECT_EQ(PlaceOf("libc.c", false, in.changed_files, in.code_path), FunctionPlace::kElsewhere);
  EXPECT_EQ(f.code_path, "globs hash.c, main.c");
}

TEST(ExplainReport, TheRecordKeepsEveryFunctionAndReadsBack) {
  ExplainInputs in = Inputs();
  ExplainFacts f = MakeExplainFacts(in);
  Record r = MakeExplainRecord(in, f, "digest");
  EXPECT_EQ(r.kind, RecordKind::kExplain);
  EXPECT_FALSE(r.verdict);
  ASSERT_EQ(r.arms.size(), 2u);
  EXPECT_EQ(r.arms[0].name, "parent");
  EXPECT_EQ(r.arms[1].commit, in.change.commit.id);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[1].value, 3200037);
  EXPECT_EQ(r.Detail("aslr"), "off");
  EXPECT_EQ(r.Detail("runs_per_side"), "1");
  r.id = "2026-12-04T120000Z-explain-lookup-0001";
  r.time = "2026-12-04T12:00:00Z";
  Result<Record> back = RecordFromJson(RecordToJson(r), "test");
  ASSERT_TRUE(back) << back.error().message();
  std::optional<ExplainFacts> read = ReadExplainFacts(*back);
  ASSERT_TRUE(read);
  ASSERT_EQ(read->functions.size(), f.functions.size());
  EXPECT_EQ(read->functions[0].function, "Hash");
  EXPECT_EQ(read->functions[0].place, FunctionPlace::kTouched);
  EXPECT_EQ(read->functions[0].change_instructions, 2000007u);
  EXPECT_EQ(read->functions[0].first_line, 5);
  EXPECT_FALSE(read->functions[0].parent_ll_misses);  // No cache simulation.
  EXPECT_EQ(read->changed_files, std::vector<std::string>{"hash.c"});
  EXPECT_EQ(read->change_subject, "Hash every key twice");
}

TEST(ExplainReport, AnotherPayloadVersionIsNotRead) {
  Record r;
  r.kind = RecordKind::kExplain;
  r.details_json = R"({"explain": {"version": 2, "functions": []}})";
  EXPECT_FALSE(ReadExplainFacts(r));
  r.details_json = "not json";
  EXPECT_FALSE(ReadExplainFacts(r));
}

TEST(ExplainReport, TheTextShowsTheTopRowsAndWhereTheMovedInstructionsAre) {
  ExplainFacts f = MakeExplainFacts(Inputs());
  const std::string text = ExplainFactsText(f, 1);
  EXPECT_NE(text.find("explain lookup: bbbbbbbbbb \"Hash every key twice\" against its parent "
                      "aaaaaaaaaa"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("+1,000,000"), std::string::npos) << text;
  EXPECT_NE(text.find("hash.c:5"), std::string::npos) << text;
  EXPECT_EQ(text.find("scan.c:5"), std::string::npos) << text;  // --top 1.
  EXPECT_NE(text.find("2 of 4 functions moved by more than the run-to-run floor (0.1% of the "
                      "parent's instructions, 1,600), the top 1 shown"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("62.5% in files the change touched, 37.5% on the query's path untouched"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("impossible"), std::string::npos) << text;
  EXPECT_EQ(ExplainDeltaText(f.functions[0]), "+1,000,000 (+100.0%)");
  const std::string markdown = ExplainFactsMarkdown(f, 0);
  EXPECT_NE(markdown.find("| `Scan` | `scan.c:5` |"), std::string::npos) << markdown;
}

TEST(ExplainReport, TheTopFunctionOnThePathUntouchedIsTheImpossibleCulpritsFingerprint) {
  ExplainInputs in = Inputs();
  in.changed_files = {"main.c"};
  ExplainFacts f = MakeExplainFacts(in);
  EXPECT_EQ(f.functions[0].place, FunctionPlace::kOnPath);
  const std::string text = ExplainFactsText(f, 10);
  EXPECT_NE(text.find("the function that moved most, Hash, is on the query's path in a file the "
                      "change did not touch"),
            std::string::npos)
      << text;
}

TEST(ExplainReport, MovesWithinTheRunToRunFloorAreNotCalledMoves) {
  // Threads that share a scan move a few thousand instructions between functions from run
  // to run: 0.1% of the parent's instructions is the floor.
  ExplainInputs in = Inputs();
  in.change.profile = *ParseFunctionProfile(R"(events: Ir
fl=/x/hash.c
fn=Hash
5 1000500
fl=/x/scan.c
fn=Scan
5 600010
fl=/x/main.c
fn=main
4 8
)");
  in.changed_files = {"main.c"};
  ExplainFacts f = MakeExplainFacts(in);
  EXPECT_EQ(f.NoiseFloor(), 1600u);
  EXPECT_EQ(f.functions[0].Delta(), 493);
  const std::string text = ExplainFactsText(f, 10);
  EXPECT_NE(text.find("no function moved by more than the run-to-run floor"), std::string::npos)
      << text;
  EXPECT_NE(text.find("+493"), std::string::npos) << text;  // Still shown, as the largest.
  EXPECT_EQ(text.find("impossible"), std::string::npos) << text;
}

}  // namespace
}  // namespace culprit
