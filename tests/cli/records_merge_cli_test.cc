// `culprit records merge DIR...` and `records list --host` through the real executable:
// two hosts' archives made one, a second merge that changes nothing, a conflicting record
// reported (exit 1) while the rest is merged.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "records/record_store.h"
#include "tests/records/record_fixture.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

std::string WriteHostRecord(const fs::path& dir, const std::string& host) {
  Record r = FullRecord();
  r.id.clear();
  r.samples.clear();
  r.host.hostname = host;
  EXPECT_TRUE(RecordStore(dir).Write(r));
  return r.id;
}

TEST(RecordsMergeCli, TwoHostsArchivesBecomeOneAndListByHost) {
  TempDir dir;
  const fs::path a = dir.path() / "host-a", b = dir.path() / "host-b";
  const std::string from_a = WriteHostRecord(a, "bench-a");
  const std::string from_b = WriteHostRecord(b, "bench-b");
  WriteHostRecord(b, "");  // a record that does not name its host

  ProcessResult merge = RunCulprit({"records", "--dir", "host-b", "merge", "host-a"}, dir.path());
  ASSERT_EQ(merge.exit_code, 0) << DescribeRun(merge);
  EXPECT_TRUE(Contains(merge.stdout_text, "1 record copied, 0 already there"))
      << DescribeRun(merge);
  ProcessResult again = RunCulprit({"records", "--dir", "host-b", "merge", "host-a"}, dir.path());
  ASSERT_EQ(again.exit_code, 0) << DescribeRun(again);
  EXPECT_TRUE(Contains(again.stdout_text, "0 records copied, 1 already there"))
      << DescribeRun(again);

  ProcessResult list =
      RunCulprit({"records", "--dir", "host-b", "list", "--host", "bench-a"}, dir.path());
  ASSERT_EQ(list.exit_code, 0) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stdout_text, from_a)) << DescribeRun(list);
  EXPECT_FALSE(Contains(list.stdout_text, from_b)) << DescribeRun(list);
  ProcessResult unknown =
      RunCulprit({"records", "--dir", "host-b", "list", "--host", "unknown"}, dir.path());
  ASSERT_EQ(unknown.exit_code, 0) << DescribeRun(unknown);
  EXPECT_TRUE(Contains(unknown.stdout_text, "\n1 record\n")) << DescribeRun(unknown);
}

TEST(RecordsMergeCli, AConflictIsReportedAndTheRestIsMerged) {
  TempDir dir;
  const fs::path a = dir.path() / "host-a", b = dir.path() / "host-b";
  const std::string id = WriteHostRecord(a, "bench-a");
  const std::string other = WriteHostRecord(a, "bench-a");
  // The same id in b, edited.
  Record edited = RecordStore(a).Find(id).value();
  edited.notes.push_back("edited by hand");
  ASSERT_TRUE(RecordStore(b).Write(edited));

  ProcessResult merge = RunCulprit({"records", "--dir", "host-b", "merge", "host-a"}, dir.path());
  EXPECT_EQ(merge.exit_code, 1) << DescribeRun(merge);
  EXPECT_TRUE(Contains(merge.stderr_text, "conflict: host-a/" + id + ".json is a different record"))
      << DescribeRun(merge);
  EXPECT_TRUE(Contains(merge.stderr_text, "some records were not merged")) << DescribeRun(merge);
  EXPECT_TRUE(fs::exists(b / (other + ".json")));
  EXPECT_TRUE(Contains(ReadAll(b / (id + ".json")), "edited by hand"));

  ProcessResult missing = RunCulprit({"records", "--dir", "host-b", "merge", "nope"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2) << DescribeRun(missing);
  EXPECT_TRUE(Contains(missing.stderr_text, "no such records directory")) << DescribeRun(missing);
}

}  // namespace
}  // namespace culprit
