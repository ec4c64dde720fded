#include "engine/query_command.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

ArmContext Context() {
  ArmContext c;
  c.artifacts["eventstore"] = "/cache/abc/artifacts/eventstore";
  c.rev = "v1.0";
  c.commit = "0123456789abcdef";
  c.tree = "/cache/abc/src";
  return c;
}

TEST(ExpandPlaceholders, ReplacesEveryKind) {
  auto argv = ExpandCommand({"{artifact:eventstore}", "bench", "--tag={rev}@{commit}", "{tree}/x"},
                            Context());
  ASSERT_TRUE(argv) << argv.error().message();
  EXPECT_EQ((*argv)[0], "/cache/abc/artifacts/eventstore");
  EXPECT_EQ((*argv)[1], "bench");
  EXPECT_EQ((*argv)[2], "--tag=v1.0@0123456789abcdef");
  EXPECT_EQ((*argv)[3], "/cache/abc/src/x");
}

TEST(ExpandPlaceholders, DoubledBracesAreLiteral) {
  auto word = ExpandPlaceholders("{{\"a\": {rev}}}", Context());
  ASSERT_TRUE(word);
  EXPECT_EQ(*word, "{\"a\": v1.0}");
}

TEST(FillPlaceholder, FillsOnlyThePlaceholderAndEscapesTheValue) {
  EXPECT_EQ(FillPlaceholder("--q={query},{query}", "query", "q1"), "--q=q1,q1");
  // An escaped "{{query}}" is the user's literal text, not a placeholder: it stays escaped.
  EXPECT_EQ(FillPlaceholder("{{query}}={query}", "query", "q1"), "{{query}}=q1");
  EXPECT_EQ(FillPlaceholder("{{{query}}}", "query", "q1"), "{{q1}}");
  // The value goes in as written: its braces are escaped for ExpandPlaceholders.
  EXPECT_EQ(FillPlaceholder(".read {query}.sql", "query", "a{b}"), ".read a{{b}}.sql");
  // Other placeholders are left for ExpandPlaceholders.
  EXPECT_EQ(FillPlaceholder("{artifact:engine} {query} {rev}", "query", "q"),
            "{artifact:engine} q {rev}");
  ArmContext context;
  context.rev = "v1";
  auto expanded =
      ExpandPlaceholders(FillPlaceholder("{{query}}:{query}@{rev}", "query", "{x}"), context);
  ASSERT_TRUE(expanded.ok()) << expanded.error().message();
  EXPECT_EQ(*expanded, "{query}:{x}@v1");
}

TEST(ExpandPlaceholders, UnknownArtifactSuggestsNearest) {
  auto word = ExpandPlaceholders("{artifact:eventstor}", Context());
  ASSERT_FALSE(word);
  EXPECT_EQ(word.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(word.error().message().find("did you mean 'eventstore'"), std::string::npos);
}

TEST(ExpandPlaceholders, UnknownPlaceholderAndUnclosedBrace) {
  EXPECT_FALSE(ExpandPlaceholders("{comit}", Context()));
  EXPECT_NE(ExpandPlaceholders("{comit}", Context()).error().message().find("'commit'"),
            std::string::npos);
  EXPECT_FALSE(ExpandPlaceholders("x{rev", Context()));
}

TEST(ExpandPlaceholders, CommitNeedsARevision) {
  ArmContext worktree;
  EXPECT_FALSE(ExpandPlaceholders("{commit}", worktree));
  EXPECT_EQ(*ExpandPlaceholders("{rev}", worktree), "worktree");
}

// A revision is untrusted text (a published table's, or one git resolves
// leniently: `HEAD@{now;touch x}` names HEAD); only a plain one reaches a
// command, which may be a shell's.
TEST(ExpandPlaceholders, RevIsTheCommitIdUnlessTheRevisionIsPlain) {
  ArmContext context = Context();
  for (const char* plain : {"v1.0", "main", "feature/x-1_2", "HEAD", "0123abc"}) {
    context.rev = plain;
    EXPECT_EQ(*ExpandPlaceholders("{rev}", context), plain);
  }
  for (const char* other :
       {"HEAD@{now;touch pwned}", "HEAD~1", "v1^", "a b", "$(id)", "-rf", "x`y`", "a\nb", "x;y"}) {
    context.rev = other;
    EXPECT_EQ(*ExpandPlaceholders("--at={rev}", context), "--at=0123456789abcdef") << other;
  }
  context.commit.clear();
  context.rev = "HEAD@{now;touch pwned}";
  Result<std::string> refused = ExpandPlaceholders("{rev}", context);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(refused.error().message().find("pwned"), std::string::npos);
  EXPECT_TRUE(IsPlainRevision("release-1.2/rc"));
  EXPECT_FALSE(IsPlainRevision(""));
  EXPECT_FALSE(IsPlainRevision("-x"));
}

TEST(FindTemplateProblem, NamesTheFirstPlaceholderNoBuildCanFill) {
  using Kind = TemplateProblem::Kind;
  const std::vector<std::string> artifacts = {"es", "tool"};
  EXPECT_FALSE(FindTemplateProblem("{artifact:es} --at={rev}/{commit}/{tree} {{x}}", artifacts));
  auto unknown = FindTemplateProblem("--x={bogus}-{rev}", artifacts);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->kind, Kind::kUnknownPlaceholder);
  EXPECT_EQ(unknown->name, "bogus");
  auto artifact = FindTemplateProblem("{rev} {artifact:e}", artifacts);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(artifact->kind, Kind::kUnknownArtifact);
  EXPECT_EQ(artifact->name, "e");
  auto unclosed = FindTemplateProblem("{rev", artifacts);
  ASSERT_TRUE(unclosed);
  EXPECT_EQ(unclosed->kind, Kind::kUnclosedBrace);
}

}  // namespace
}  // namespace culprit
