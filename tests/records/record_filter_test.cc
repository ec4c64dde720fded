#include "records/record_filter.h"

#include <gtest/gtest.h>

#include "tests/records/record_fixture.h"

namespace culprit {
namespace {

// Designated initializers that skip fields warn on GCC 12; build filters by hand.
RecordFilter Kind(std::string v) {
  RecordFilter f;
  f.kind = v;
  return f;
}
RecordFilter OfVerdict(std::string v) {
  RecordFilter f;
  f.verdict = v;
  return f;
}
RecordFilter Query(std::string v) {
  RecordFilter f;
  f.query = v;
  return f;
}
RecordFilter Commit(std::string v) {
  RecordFilter f;
  f.commit = v;
  return f;
}

TEST(RecordFilter, EmptyFilterMatchesEverything) {
  EXPECT_TRUE(RecordFilter{}.Matches(FullRecord()));
  EXPECT_TRUE(RecordFilter{}.Matches(Record{}));
}

TEST(RecordFilter, ByKindVerdictAndQuery) {
  Record r = FullRecord();  // probe, NULL, series.count
  EXPECT_TRUE(Kind("probe").Matches(r));
  EXPECT_FALSE(Kind("bisect").Matches(r));
  EXPECT_TRUE(OfVerdict("null").Matches(r));
  EXPECT_FALSE(OfVerdict("EFFECT").Matches(r));
  EXPECT_TRUE(Query("series.count").Matches(r));
  EXPECT_FALSE(Query("series").Matches(r));
  EXPECT_FALSE(([] {
    RecordFilter f = Kind("probe");
    f.verdict = "EFFECT";
    return f;
  }()
                    .Matches(r)));
}

TEST(RecordFilter, ByCommitPrefixOnArmsAndCulpritDetails) {
  Record r = FullRecord();
  r.arms[1].commit = "5555aaaa";
  EXPECT_TRUE(Commit("0123456").Matches(r));  // arm 0
  EXPECT_TRUE(Commit("5555A").Matches(r));    // arm 1, any case
  EXPECT_TRUE(Commit("89ab").Matches(r));     // details.culprit_commit
  EXPECT_FALSE(Commit("3").Matches(r));       // details.step is not a commit
  EXPECT_FALSE(Commit("abcdef").Matches(r));  // inside an id, not a prefix
}

TEST(RecordFilter, ValidateSuggestsKnownWords) {
  EXPECT_TRUE(RecordFilter{}.Validate());
  EXPECT_TRUE(([] {
    RecordFilter f = Kind("bisect-step");
    f.verdict = "inconclusive";
    return f;
  }()
                   .Validate()));
  Status kind = Kind("prob").Validate();
  ASSERT_FALSE(kind);
  EXPECT_EQ(kind.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(kind.error().message(), "unknown record kind 'prob', did you mean 'probe'?");
  Status verdict = OfVerdict("EFECT").Validate();
  ASSERT_FALSE(verdict);
  EXPECT_NE(verdict.error().message().find("did you mean 'EFFECT'"), std::string::npos);
  EXPECT_FALSE(Commit("").Validate());
}

TEST(RecordFilter, HostSelectsByHostNameAndUnknownByNone) {
  Record named = FullRecord();
  named.host.hostname = "bench-1";
  Record anonymous = FullRecord();
  anonymous.host.hostname.clear();
  anonymous.host.machine_id.clear();
  RecordFilter filter;
  filter.host = "bench-1";
  EXPECT_TRUE(filter.Matches(named));
  EXPECT_FALSE(filter.Matches(anonymous));
  filter.host = "unknown";
  EXPECT_FALSE(filter.Matches(named));
  EXPECT_TRUE(filter.Matches(anonymous));
  // The machine identity selects too (a renamed host keeps it).
  named.host.machine_id = "m-0123456789abcdef";
  filter.host = "m-0123456789abcdef";
  EXPECT_TRUE(filter.Matches(named));
  EXPECT_FALSE(filter.Matches(anonymous));
}

}  // namespace
}  // namespace culprit
