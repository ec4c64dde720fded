// Two archives of 1,000 records each, 100 of them in both, merged both ways: no record lost,
// none duplicated, and a second merge changes nothing (the number for `records merge`).

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "records/record_merge.h"
#include "records/record_store.h"
#include "tests/records/record_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

TEST(RecordMergeAtScale, TwoThousandRecordsNoneLostNoneDuplicated) {
  TempDir dir;
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  std::set<std::string> ids_a, ids_b;
  for (int i = 0; i < 1000; ++i) {
    Record r = FullRecord();
    r.id.clear();
    r.samples.clear();
    r.host.hostname = "host-a";
    r.query = "q" + std::to_string(i % 13);
    ASSERT_TRUE(RecordStore(a).Write(r));
    ids_a.insert(r.id);
  }
  // b holds 100 of a's records (copied earlier) and 900 of its own.
  int shared = 0;
  for (const std::string& id : ids_a) {
    if (shared++ == 100) break;
    fs::create_directories(b);
    fs::copy_file(a / (id + ".json"), b / (id + ".json"));
    ids_b.insert(id);
  }
  for (int i = 0; i < 900; ++i) {
    Record r = FullRecord();
    r.id.clear();
    r.samples.clear();
    r.host.hostname = "host-b";
    ASSERT_TRUE(RecordStore(b).Write(r));
    ids_b.insert(r.id);
  }
  std::set<std::string> all = ids_a;
  all.insert(ids_b.begin(), ids_b.end());
  ASSERT_EQ(all.size(), 1900u);

  Result<RecordMergeReport> into_b = MergeRecords(a, b);
  ASSERT_TRUE(into_b) << into_b.error().message();
  EXPECT_EQ(into_b->copied.size(), 900u);
  EXPECT_EQ(into_b->already_present, 100);
  EXPECT_TRUE(into_b->complete());
  Result<RecordMergeReport> into_a = MergeRecords(b, a);
  ASSERT_TRUE(into_a) << into_a.error().message();
  EXPECT_EQ(into_a->copied.size(), 900u);
  EXPECT_EQ(into_a->already_present, 1000);

  for (const fs::path& archive : {a, b}) {
    RecordStore::Listing listing = RecordStore(archive).List();
    EXPECT_TRUE(listing.problems.empty());
    std::set<std::string> listed;
    for (const Record& r : listing.records) listed.insert(r.id);
    EXPECT_EQ(listing.records.size(), 1900u) << archive;
    EXPECT_EQ(listed, all) << archive;
  }
  // Idempotent: merging again copies nothing.
  Result<RecordMergeReport> again = MergeRecords(a, b);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->copied.empty());
  EXPECT_EQ(again->already_present, 1900);
}

}  // namespace
}  // namespace culprit
