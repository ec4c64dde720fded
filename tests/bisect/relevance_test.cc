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
  EXPECT_FALSE(CheckRelevance({"a"}, std::vector<std::string>{}).known);
}

TEST(Relevance, AgainstAMeasuredPathAndAnUnknownOne) {
  CodePath measured;
  measured.source = CodePath::Source::kCoverage;
  measured.commit = std::string(40, 'c');
  measured.files = {"src/scan/scan.cc", "src/store/store.cc"};
  Relevance relevance = CheckRelevance({"src/index/persist.cc", "src/scan/scan.cc"}, measured);
  EXPECT_TRUE(relevance.known);
  EXPECT_EQ(relevance.on_path, std::vector<std::string>{"src/scan/scan.cc"});
  EXPECT_EQ(relevance.off_path, std::vector<std::string>{"src/index/persist.cc"});
  EXPECT_EQ(relevance.how_known, "coverage at cccccccccc (2 files)");

  CodePath unknown;
  unknown.why_unknown = "gcov is not installed";
  Relevance unsure = CheckRelevance({"src/scan/scan.cc"}, unknown);
  EXPECT_FALSE(unsure.known);
  EXPECT_FALSE(unsure.relevant());
  EXPECT_EQ(unsure.how_known, "unknown: gcov is not installed");
}

}  // namespace
}  // namespace culprit
