// MergeRecords on real directories: copies byte for byte, never overwrites, counts what was
// already there, reports conflicts and damaged or misnamed files, and refuses to merge an
// archive into itself.

#include "records/record_merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "records/record_store.h"
#include "tests/records/record_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

// A small record of host `host` (its samples left out: merging never reads them apart).
Record HostRecord(const std::string& host, const std::string& query) {
  Record r = FullRecord();
  r.id.clear();
  r.samples.clear();
  r.query = query;
  r.host.hostname = host;
  return r;
}

std::string Write(const fs::path& dir, Record record) {
  Result<fs::path> path = RecordStore(dir).Write(record);
  EXPECT_TRUE(path) << path.error().message();
  return record.id;
}

TEST(RecordMerge, CopiesWhatIsMissingByteForByteAndIsIdempotent) {
  TempDir dir;
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  const std::string only_a = Write(a, HostRecord("bench-1", "q1"));
  const std::string only_b = Write(b, HostRecord("bench-2", "q2"));
  // The same record in both archives (a job's records copied by hand earlier).
  fs::copy_file(b / (only_b + ".json"), a / (only_b + ".json"));

  Result<RecordMergeReport> merged = MergeRecords(a, b);
  ASSERT_TRUE(merged) << merged.error().message();
  EXPECT_EQ(merged->copied, std::vector<std::string>{only_a});
  EXPECT_EQ(merged->already_present, 1);
  EXPECT_TRUE(merged->complete());
  EXPECT_EQ(ReadAll(b / (only_a + ".json")), ReadAll(a / (only_a + ".json")));
  EXPECT_EQ(RecordStore(b).List().records.size(), 2u);

  // Merging again changes nothing.
  Result<RecordMergeReport> again = MergeRecords(a, b);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->copied.empty());
  EXPECT_EQ(again->already_present, 2);
  EXPECT_EQ(RecordStore(b).List().records.size(), 2u);
}

TEST(RecordMerge, ARecordReindentedByHandIsTheSameRecord) {
  TempDir dir;
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  const std::string id = Write(a, HostRecord("bench-1", "q1"));
  std::string text = ReadAll(a / (id + ".json"));
  // The same JSON, indented differently.
  std::string reindented;
  for (char c : text) {
    reindented += c;
    if (c == ',') reindented += "\n    ";
  }
  WriteTextFile(b / (id + ".json"), reindented);
  Result<RecordMergeReport> merged = MergeRecords(a, b);
  ASSERT_TRUE(merged) << merged.error().message();
  EXPECT_EQ(merged->already_present, 1);
  EXPECT_TRUE(merged->conflicts.empty());
}

TEST(RecordMerge, AConflictIsReportedAndTheArchiveKeepsItsOwn) {
  TempDir dir;
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  const std::string id = Write(a, HostRecord("bench-1", "q1"));
  Record edited = HostRecord("bench-1", "q1");
  edited.id = id;
  edited.notes = {"edited by hand"};
  Write(b, edited);
  const std::string before = ReadAll(b / (id + ".json"));

  Result<RecordMergeReport> merged = MergeRecords(a, b);
  ASSERT_TRUE(merged) << merged.error().message();
  ASSERT_EQ(merged->conflicts.size(), 1u);
  EXPECT_EQ(merged->conflicts[0].id, id);
  EXPECT_EQ(merged->conflicts[0].source, a / (id + ".json"));
  EXPECT_FALSE(merged->complete());
  EXPECT_EQ(ReadAll(b / (id + ".json")), before);
}

TEST(RecordMerge, DamagedMisnamedAndTemporaryFilesAreNotCopied) {
  TempDir dir;
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  const std::string good = Write(a, HostRecord("bench-1", "q1"));
  WriteTextFile(a / "2026-12-04T000000Z-run-q-dead.json", "{\"schema\": 1, \"id\": ");
  fs::copy_file(a / (good + ".json"), a / "renamed.json");
  WriteTextFile(a / ".2026-12-04T000000Z-run-q-beef.json.tmp-1-abcdefgh", "{");
  WriteTextFile(a / "notes.txt", "not a record");

  Result<RecordMergeReport> merged = MergeRecords(a, b);
  ASSERT_TRUE(merged) << merged.error().message();
  EXPECT_EQ(merged->copied, std::vector<std::string>{good});
  ASSERT_EQ(merged->problems.size(), 2u);
  EXPECT_NE(merged->problems[0].message().find("run-q-dead"), std::string::npos)
      << merged->problems[0].message();
  EXPECT_NE(merged->problems[1].message().find("renamed.json holds record " + good),
            std::string::npos)
      << merged->problems[1].message();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(b)) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{good + ".json"});
}

TEST(RecordMerge, RefusesAMissingSourceAndTheArchiveItself) {
  TempDir dir;
  const fs::path a = dir.path() / "a";
  Write(a, HostRecord("bench-1", "q1"));
  Result<RecordMergeReport> missing = MergeRecords(dir.path() / "nope", a);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(missing.error().message().find("no such records directory"), std::string::npos);
  Result<RecordMergeReport> itself = MergeRecords(a, dir.path() / "a/../a");
  ASSERT_FALSE(itself);
  EXPECT_NE(itself.error().message().find("is the archive being merged into"), std::string::npos);
}

}  // namespace
}  // namespace culprit
