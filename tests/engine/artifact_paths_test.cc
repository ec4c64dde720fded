#include "engine/artifact_paths.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

TEST(ArtifactName, IsTheFileName) {
  EXPECT_EQ(ArtifactName("build/eventstore"), "eventstore");
  EXPECT_EQ(ArtifactName("./out/bin/es.sh"), "es.sh");
  EXPECT_EQ(ArtifactName("build/x/."), "");
}

TEST(FindArtifactProblem, FirstBadEntry) {
  EXPECT_FALSE(FindArtifactProblem({}).has_value());
  EXPECT_FALSE(FindArtifactProblem({"build/a", "build/b"}).has_value());
  using Kind = ArtifactProblem::Kind;
  auto absolute = FindArtifactProblem({"build/a", "/usr/bin/a"});
  ASSERT_TRUE(absolute.has_value());
  EXPECT_EQ(absolute->index, 1u);
  EXPECT_EQ(absolute->kind, Kind::kNotRelative);
  EXPECT_EQ(FindArtifactProblem({"../a"})->kind, Kind::kNotRelative);
  EXPECT_EQ(FindArtifactProblem({"build/"})->kind, Kind::kNotRelative);
  auto twice = FindArtifactProblem({"a/es", "b/x", "c/es"});
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->index, 2u);
  EXPECT_EQ(twice->kind, Kind::kDuplicateName);
  EXPECT_EQ(twice->name, "es");
}

}  // namespace
}  // namespace culprit
