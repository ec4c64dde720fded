#include "bisect/bisect_state.h"

#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

BisectState TwoCommits() {
  BisectState s;
  s.run_id = "run";
  s.status = "running";
  s.good_rev = "v1";
  s.bad_rev = "v2";
  s.query = "q";
  s.commits = {std::string(40, 'a'), std::string(40, 'b')};
  return s;
}

TEST(BisectStateJson, RoundTrips) {
  BisectState s = TwoCommits();
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->commits, s.commits);
  EXPECT_EQ(back->good_rev, "v1");
}

TEST(BisectStateJson, Latin1TextIsReplacedNotThrownOn) {
  // A skip note quotes a commit subject, which real histories write in
  // Latin-1 (0xE9: é) as often as in UTF-8.
  BisectState s = TwoCommits();
  s.good_rev = "v\xe9";
  BisectStepLog step;
  step.step = 1;
  step.kind = "measure";
  step.commit = s.commits[1];
  step.note = "skipped: commit bbbb (Caf\xe9) does not build";
  s.log.push_back(step);
  std::string json = BisectStateToJson(s);
  Result<BisectState> back = BisectStateFromJson(json, "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->good_rev, "v\xef\xbf\xbd");  // U+FFFD
  ASSERT_EQ(back->log.size(), 1u);
  EXPECT_EQ(back->log[0].note, "skipped: commit bbbb (Caf\xef\xbf\xbd) does not build");
}

TEST(BisectStateJson, ARangeOfFewerThanTwoCommitsIsDamaged) {
  for (size_t n : {0u, 1u}) {
    BisectState s = TwoCommits();
    s.commits.resize(n);
    Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message().find("state.json: damaged bisect state"), std::string::npos)
        << back.error().message();
    EXPECT_NE(back.error().hint().find("bisect reset"), std::string::npos);
  }
}

TEST(BisectStateJson, AFieldOfTheWrongTypeIsDamaged) {
  std::string json = BisectStateToJson(TwoCommits());
  size_t at = json.find("\"first_parent\": ");
  ASSERT_NE(at, std::string::npos) << json;
  json.replace(at, std::string("\"first_parent\": ").size(), "\"first_parent\": \"yes\", \"x\": ");
  Result<BisectState> back = BisectStateFromJson(json, "state.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message().find("damaged bisect state"), std::string::npos);
}

}  // namespace
}  // namespace culprit
