#include "bisect/relevance.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

TEST(Relevance, GlobsMatchAcrossDirectories) {
  std::vector<std::string> globs = {"src/scan/**", "src/session/session.*"};
  EXPECT_TRUE(MatchesCodePath("src/scan/scan.cc", globs));
  EXPECT_TRUE(MatchesCodePath("src/scan/deep/x.h", globs));
  EXPECT_TRUE(MatchesCodePath("src/session/session.cc", globs));
  EXPECT_FALSE(MatchesCodePath("src/session/protocol.cc", globs));
  EXPECT_FALSE(MatchesCodePath("src/index/persist.cc", globs));
}

TEST(Relevance, SplitsChangedFiles) {
  Relevance r = CheckRelevance({"src/index/persist.cc", "src/index/persist.h", "src/scan/a.cc"},
                               {"src/scan/**"});
  EXPECT_TRUE(r.known);
  EXPECT_TRUE(r.relevant());
  EXPECT_EQ(r.on_path, (std::vector<std::string>{"src/scan/a.cc"}));
  EXPECT_EQ(r.off_path.size(), 2u);
  Relevance none = CheckRelevance({"src/index/persist.cc"}, {"src/scan/**"});
  EXPECT_FALSE(none.relevant());
  EXPECT_FALSE(CheckRelevance({"a"}, {}).known);
}

}  // namespace
}  // namespace culprit
