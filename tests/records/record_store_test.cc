#include "records/record_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "base/atomic_file.h"
#include "base/timestamp.h"
#include "tests/records/record_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Record Simple(std::string kind, std::string query, std::string time = "2026-11-30T10:15:00Z") {
  Record r;
  r.kind = ParseRecordKind(kind).value();
  r.query = std::move(query);
  r.time = std::move(time);
  r.verdict = Verdict::kNull;
  return r;
}

int CountFiles(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(RecordStore, AssignsIdFromTimeKindAndQuery) {
  TempDir dir;
  RecordStore store(dir.path() / "records");
  Record r = Simple("bisect-step", "Series Count/1M");
  auto path = store.Write(r);
  ASSERT_TRUE(path) << path.error().message();
  EXPECT_TRUE(std::regex_match(r.id, std::regex("2026-11-30T101500Z-bisect-step-series-count-1m-"
                                                "[0-9a-f]{4}")))
      << r.id;
  EXPECT_EQ(*path, dir.path() / "records" / (r.id + ".json"));
  auto back = RecordFromJson(*ReadFile(*path), path->string());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, r.id);
}

TEST(RecordStore, NoQueryIsNoneAndEmptyTimeIsNow) {
  TempDir dir;
  RecordStore store(dir.path());
  Record r = Simple("audit", "", "");
  auto before = std::chrono::system_clock::now();
  ASSERT_TRUE(store.Write(r));
  auto written = ParseIsoUtc(r.time);
  ASSERT_TRUE(written);
  EXPECT_GE(*written, std::chrono::floor<std::chrono::seconds>(before));
  EXPECT_TRUE(Contains(r.id, "-audit-none-")) << r.id;
}

TEST(RecordStore, SanitizeIdPart) {
  EXPECT_EQ(SanitizeIdPart("series.count"), "series.count");
  EXPECT_EQ(SanitizeIdPart("  a/b c  "), "a-b-c");
  EXPECT_EQ(SanitizeIdPart("..hidden"), "hidden");
  EXPECT_EQ(SanitizeIdPart("/// "), "none");
  EXPECT_EQ(SanitizeIdPart(std::string(100, 'x')).size(), 48u);
}

TEST(RecordStore, TwoRecordsInTheSameSecondGetTwoFiles) {
  TempDir dir;
  RecordStore store(dir.path());
  Record a = Simple("probe", "q"), b = Simple("probe", "q");
  ASSERT_TRUE(store.Write(a));
  ASSERT_TRUE(store.Write(b));
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(CountFiles(dir.path()), 2);
  EXPECT_EQ(store.List().records.size(), 2u);
}

TEST(RecordStore, CollidingSuffixIsRetriedNotOverwritten) {
  TempDir dir;
  std::vector<uint32_t> suffixes = {0x1234, 0x1234, 0x1234, 0xabcd};
  size_t next = 0;
  RecordStore store(dir.path(), [&] { return suffixes[next++]; });
  Record a = Simple("probe", "q");
  a.hypothesis = "first";
  Record b = Simple("probe", "q");
  b.hypothesis = "second";
  ASSERT_TRUE(store.Write(a));
  ASSERT_TRUE(store.Write(b));
  EXPECT_EQ(a.id, "2026-11-30T101500Z-probe-q-1234");
  EXPECT_EQ(b.id, "2026-11-30T101500Z-probe-q-abcd");
  EXPECT_EQ(next, 4u);
  EXPECT_EQ(store.Find(a.id)->hypothesis, "first");
  EXPECT_EQ(store.Find(b.id)->hypothesis, "second");
}

TEST(RecordStore, GivenIdIsNeverOverwritten) {
  TempDir dir;
  RecordStore store(dir.path());
  Record a = Simple("run", "q");
  a.id = "fixed";
  a.notes = {"original"};
  ASSERT_TRUE(store.Write(a));
  Record b = a;
  b.notes = {"impostor"};
  auto second = store.Write(b);
  ASSERT_FALSE(second);
  EXPECT_TRUE(Contains(second.error().message(), "never overwritten"));
  EXPECT_EQ(store.Find("fixed")->notes, std::vector<std::string>{"original"});
  EXPECT_EQ(CountFiles(dir.path()), 1);
}

TEST(RecordStore, RefusesUnsafeIdsAndBadTimes) {
  TempDir dir;
  RecordStore store(dir.path());
  Record a = Simple("run", "q");
  a.id = "../escape";
  EXPECT_FALSE(store.Write(a));
  Record b = Simple("run", "q", "30/11/2026");
  auto result = store.Write(b);
  ASSERT_FALSE(result);
  EXPECT_TRUE(Contains(result.error().message(), "30/11/2026"));
  EXPECT_TRUE(b.id.empty());
  EXPECT_EQ(CountFiles(dir.path()), 0);
}

TEST(RecordStore, ListingContinuesPastBadFilesAndReportsThem) {
  TempDir dir;
  RecordStore store(dir.path());
  Record early = Simple("probe", "q", "2026-11-30T09:00:00Z");
  Record late = Simple("compare", "q", "2026-11-30T11:00:00Z");
  ASSERT_TRUE(store.Write(late));
  ASSERT_TRUE(store.Write(early));
  std::string future = RecordToJson(Simple("run", "q"));
  future.replace(future.find("culprit.record/v1"), 17, "culprit.record/v2");
  WriteTextFile(dir.path() / "a-future.json", future);
  WriteTextFile(dir.path() / "b-damaged.json", "{\"schema\": \"culprit.record/v1\", \"id\": ");
  WriteTextFile(dir.path() / "README.txt", "not a record");

  RecordStore::Listing listing = store.List();
  ASSERT_EQ(listing.records.size(), 2u);
  EXPECT_EQ(listing.records[0].id, early.id);  // sorted by time, not by name
  EXPECT_EQ(listing.records[1].id, late.id);
  ASSERT_EQ(listing.problems.size(), 2u);
  EXPECT_TRUE(Contains(listing.problems[0].message(), "a-future.json: schema 'culprit.record/v2'"));
  EXPECT_TRUE(Contains(listing.problems[1].message(), "b-damaged.json: damaged record"));
}

// One record nested 100k deep took the whole listing down with it (exit 139): it is
// reported as damaged and the rest of the archive is listed.
TEST(RecordStore, ListingSurvivesARecordNestedTooDeep) {
  TempDir dir;
  RecordStore store(dir.path());
  Record good = Simple("probe", "q");
  ASSERT_TRUE(store.Write(good));
  std::string deep = RecordToJson(Simple("run", "q"));
  deep.insert(deep.find('{') + 1,
              "\"payload\": " + std::string(100000, '[') + std::string(100000, ']') + ",");
  WriteTextFile(dir.path() / "deep.json", deep);
  RecordStore::Listing listing = store.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0].id, good.id);
  ASSERT_EQ(listing.problems.size(), 1u);
  EXPECT_TRUE(Contains(listing.problems[0].message(), "deep.json: damaged record: JSON nested"))
      << listing.problems[0].message();
  auto found = store.Find("deep");
  ASSERT_FALSE(found);
  EXPECT_TRUE(Contains(found.error().message(), "damaged record")) << found.error().message();
}

// A stray file named like a write-check probe whose "pid" overflows a long made
// std::stol throw, and every measuring command stopped: it is skipped and left alone.
TEST(RecordStore, CheckWritableSkipsAStrayProbeNameThatIsNoPid) {
  TempDir dir;
  RecordStore store(dir.path());
  ASSERT_TRUE(store.CheckWritable());
  const std::vector<std::string> stray = {".culprit-write-check-12345678901234567890",
                                          ".culprit-write-check--5", ".culprit-write-check-0",
                                          ".culprit-write-check-12x"};
  for (const std::string& name : stray) WriteTextFile(dir.path() / name, "");
  Status status = store.CheckWritable();
  ASSERT_TRUE(status) << status.error().message();
  for (const std::string& name : stray) EXPECT_TRUE(fs::exists(dir.path() / name)) << name;
}

// The fallback lands in the shared temp dir and records carry environment values:
// it is readable by its owner only, whatever the umask.
TEST(RecordStore, FallbackRecordIsPrivate) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "blocker", "not a directory"));
  RecordStore store(dir.path() / "blocker" / "records");
  Record record = Simple("probe", "series.count");
  record.arms.resize(1);
  record.arms[0].env = {{"API_TOKEN", "secret"}};
  const mode_t old_umask = ::umask(0);
  RecordStore::Archived archived = store.WriteOrFallback(record);
  ::umask(old_umask);
  ASSERT_TRUE(archived.error);
  ASSERT_FALSE(archived.path.empty());
  struct stat info {};
  ASSERT_EQ(::stat(archived.path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  Result<std::string> text = ReadFile(archived.path);
  ASSERT_TRUE(text);
  EXPECT_TRUE(RecordFromJson(*text, archived.path.string()));
  // Nothing else was left beside it.
  for (const auto& entry : fs::directory_iterator(archived.path.parent_path())) {
    EXPECT_FALSE(Contains(entry.path().filename().string(),
                          "." + archived.path.filename().string() + ".tmp"))
        << entry.path();
  }
  fs::remove(archived.path);
}

TEST(RecordStore, MissingDirectoryIsAnEmptyArchive) {
  TempDir dir;
  RecordStore store(dir.path() / "not-yet");
  RecordStore::Listing listing = store.List();
  EXPECT_TRUE(listing.records.empty());
  EXPECT_TRUE(listing.problems.empty());
  auto found = store.Find("x");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind(), ErrorKind::kUsage);
}

TEST(RecordStore, CrashLeftoversAreNotRecords) {
  TempDir dir;
  RecordStore store(dir.path());
  Record r = Simple("probe", "q");
  ASSERT_TRUE(store.Write(r));
  // What a crash in the middle of WriteFileAtomically leaves behind: a
  // hidden, half-written temp file.
  std::string half = RecordToJson(FullRecord());
  half.resize(half.size() / 3);
  WriteTextFile(dir.path() / ".2026-11-30T101500Z-probe-q-9999.json.tmp-123-deadbeef", half);
  WriteTextFile(dir.path() / ".x.json", half);
  RecordStore::Listing listing = store.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0].id, r.id);
  EXPECT_TRUE(listing.problems.empty());
  EXPECT_FALSE(store.Find(".x"));
}

TEST(RecordStore, ConcurrentReaderNeverSeesAPartialRecord) {
  TempDir dir;
  RecordStore store(dir.path());
  constexpr int kRecords = 60;
  constexpr size_t kSamples = 2000;
  std::atomic<bool> done{false};
  std::atomic<int> torn{0};
  std::set<std::string> verified;
  std::string first_problem;
  // The reader polls the directory and reads each record file as soon as its
  // name appears, which is when a non-atomic writer would still be writing it.
  auto poll = [&] {
    RecordStore reader(dir.path());
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      std::string name = entry.path().filename().string();
      if (name[0] == '.' || !name.ends_with(".json")) continue;
      std::string id = name.substr(0, name.size() - 5);
      if (verified.count(id)) continue;
      auto record = reader.Find(id);
      if (!record || record->samples.size() != kSamples) {
        if (first_problem.empty()) {
          first_problem = record ? "short record" : record.error().message();
        }
        ++torn;
      }
      verified.insert(id);
    }
  };
  std::thread reader_thread([&] {
    while (!done.load()) poll();
    poll();
  });
  Record big = FullRecord();
  big.id.clear();
  big.samples.clear();
  for (size_t i = 0; i < kSamples; ++i) {
    Sample s;
    s.sequence = static_cast<int>(i);
    s.arm = static_cast<int>(i % 2);
    s.pair = static_cast<int>(i / 2);
    s.value = 10 + i * 0.001;
    big.samples.push_back(s);
  }
  for (int i = 0; i < kRecords; ++i) {
    Record r = big;
    ASSERT_TRUE(store.Write(r));
  }
  done = true;
  reader_thread.join();
  EXPECT_EQ(torn.load(), 0) << first_problem;
  EXPECT_EQ(verified.size(), static_cast<size_t>(kRecords));
  RecordStore::Listing listing = store.List();
  EXPECT_EQ(listing.records.size(), static_cast<size_t>(kRecords));
  EXPECT_TRUE(listing.problems.empty());
}

TEST(RecordStore, FindByExactIdOrUniquePrefix) {
  TempDir dir;
  std::vector<uint32_t> suffixes = {0xaaa1, 0xaaa2, 0xbbb1};
  size_t next = 0;
  RecordStore store(dir.path(), [&] { return suffixes[next++]; });
  Record a = Simple("probe", "q"), b = Simple("probe", "q"), c = Simple("probe", "q");
  ASSERT_TRUE(store.Write(a));
  ASSERT_TRUE(store.Write(b));
  ASSERT_TRUE(store.Write(c));
  EXPECT_EQ(store.Find(a.id)->id, a.id);
  EXPECT_EQ(store.Find("2026-11-30T101500Z-probe-q-b")->id, c.id);

  auto ambiguous = store.Find("2026-11-30T101500Z-probe-q-aaa");
  ASSERT_FALSE(ambiguous);
  EXPECT_EQ(ambiguous.error().kind(), ErrorKind::kUsage);
  EXPECT_TRUE(Contains(ambiguous.error().message(), "matches 2 records"));
  EXPECT_TRUE(Contains(ambiguous.error().message(), a.id));
  EXPECT_TRUE(Contains(ambiguous.error().message(), b.id));

  auto missing = store.Find("2027");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(Contains(missing.error().message(), "no record '2027'"));
  EXPECT_TRUE(Contains(missing.error().hint(), "records list"));

  // Any unique part of an id: the random suffix alone.
  EXPECT_EQ(store.Find("bbb1")->id, c.id);
  auto two = store.Find("aaa");
  ASSERT_FALSE(two);
  EXPECT_TRUE(Contains(two.error().message(), "matches 2 records"));
}

TEST(RecordStore, ExactIdWinsOverLongerIds) {
  TempDir dir;
  RecordStore store(dir.path());
  Record a = Simple("run", "q");
  a.id = "abc";
  Record b = Simple("run", "q");
  b.id = "abcd";
  ASSERT_TRUE(store.Write(a));
  ASSERT_TRUE(store.Write(b));
  EXPECT_EQ(store.Find("abc")->id, "abc");
}

TEST(RecordStore, FindReportsADamagedFile) {
  TempDir dir;
  RecordStore store(dir.path());
  WriteTextFile(dir.path() / "broken.json", "not json");
  auto found = store.Find("broken");
  ASSERT_FALSE(found);
  EXPECT_TRUE(Contains(found.error().message(), "broken.json: damaged record"));
}

TEST(RecordStore, CheckWritableRefusesADirectoryThatCannotBeMade) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "blocker", "not a directory"));
  RecordStore store(dir.path() / "blocker" / "records");
  Status status = store.CheckWritable();
  ASSERT_FALSE(status);
  EXPECT_TRUE(Contains(status.error().message(), "is not writable")) << status.error().message();
  EXPECT_TRUE(Contains(status.error().hint(), "nothing was measured"));
}

TEST(RecordStore, CheckWritableCreatesTheDirectoryAndLeavesNothingBehind) {
  TempDir dir;
  RecordStore store(dir.path() / "new" / "records");
  ASSERT_TRUE(store.CheckWritable());
  EXPECT_TRUE(fs::is_directory(dir.path() / "new" / "records"));
  EXPECT_TRUE(fs::is_empty(dir.path() / "new" / "records"));
}

// The archive broke after the work was done: the record goes to a fallback
// file that the error names, whole and readable.
TEST(RecordStore, WriteOrFallbackNeverLosesTheRecord) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "blocker", "not a directory"));
  RecordStore store(dir.path() / "blocker" / "records");
  Record record = Simple("probe", "series.count");
  RecordStore::Archived archived = store.WriteOrFallback(record);
  ASSERT_TRUE(archived.error);
  ASSERT_FALSE(archived.path.empty());
  EXPECT_TRUE(Contains(archived.error->hint(), archived.path.string()));
  EXPECT_TRUE(Contains(archived.path.filename().string(), "culprit-unarchived-" + record.id));
  Result<std::string> text = ReadFile(archived.path);
  ASSERT_TRUE(text);
  Result<Record> back = RecordFromJson(*text, archived.path.string());
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->id, record.id);
  EXPECT_EQ(back->verdict, Verdict::kNull);
  fs::remove(archived.path);
}

TEST(RecordStore, WriteOrFallbackArchivesWhenItCan) {
  TempDir dir;
  RecordStore store(dir.path());
  Record record = Simple("probe", "q");
  RecordStore::Archived archived = store.WriteOrFallback(record);
  EXPECT_FALSE(archived.error);
  EXPECT_EQ(archived.path.parent_path(), dir.path());
}

TEST(RecordStore, ARecordCarriesTheInvocationItsConfigurationPassedDown) {
  TempDir dir;
  RecordsConfig records;
  records.dir = dir.path() / "records";
  records.invocation = {"culprit", "compare", "v1", "v2", "-q", "scan"};
  RecordStore store(records);
  EXPECT_EQ(store.dir(), records.dir);
  Record plain = Simple("compare", "scan");
  ASSERT_TRUE(store.Write(plain));
  EXPECT_EQ(plain.invocation, records.invocation);
  EXPECT_EQ(store.Find(plain.id)->invocation, records.invocation);
  // A record that says its own command line keeps it (the investigation's, the demo's).
  Record own = Simple("compare", "scan");
  own.invocation = {"culprit", "demo"};
  ASSERT_TRUE(store.Write(own));
  EXPECT_EQ(store.Find(own.id)->invocation, own.invocation);
  // The fallback file of an archive that refused the record says it too.
  Record unarchived = Simple("compare", "scan");
  Result<fs::path> fallback = store.WriteFallback(unarchived);
  ASSERT_TRUE(fallback) << fallback.error().message();
  Result<Record> back = RecordFromJson(*ReadFile(*fallback), fallback->string());
  fs::remove(*fallback);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->invocation, records.invocation);
}

TEST(RecordStore, AStoreOfABareDirectoryInventsNoInvocation) {
  // No store reads a process-wide command line: one built from a directory alone (the
  // readers' store) writes a record's own invocation or none.
  TempDir dir;
  Record bare = Simple("run", "scan");
  ASSERT_TRUE(RecordStore(dir.path() / "records").Write(bare).ok());
  EXPECT_TRUE(bare.invocation.empty());
  Record own = Simple("run", "scan");
  own.invocation = {"culprit", "run", "scan"};
  ASSERT_TRUE(RecordStore(dir.path() / "records").Write(own).ok());
  EXPECT_EQ(own.invocation, (std::vector<std::string>{"culprit", "run", "scan"}));
}

}  // namespace
}  // namespace culprit
