#include "base/config_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

constexpr char kFile[] = "/proj/culprit.toml";

ConfigDocument Parse(std::string_view text) {
  Result<ConfigDocument> document = ConfigDocument::Parse(text, ConfigSource(kFile, "/proj"));
  EXPECT_TRUE(document.ok()) << (document ? "" : document.error().message());
  return std::move(*document);
}

TEST(ConfigDigest, IsFnv1a64) {
  EXPECT_EQ(ConfigDigest(""), "cbf29ce484222325");
  EXPECT_EQ(ConfigDigest("a"), "af63dc4c8601ec8c");
}

TEST(ConfigKeyPath, QuotesWhatIsNotBare) {
  EXPECT_EQ(ConfigKeyPath("", "measure"), "measure");
  EXPECT_EQ(ConfigKeyPath("queries", "series.count"), "queries.\"series.count\"");
  EXPECT_EQ(ConfigKeyPath("queries.q", "env"), "queries.q.env");
}

TEST(ConfigDocument, SyntaxErrorsArePositioned) {
  Result<ConfigDocument> bad = ConfigDocument::Parse("a = [1,\n", ConfigSource(kFile, "/proj"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(bad.error().message().rfind("/proj/culprit.toml:", 0), 0u) << bad.error().message();
  EXPECT_NE(bad.error().message().find("invalid TOML"), std::string::npos);
  EXPECT_EQ(bad.error().hint(), "see https://toml.io for the syntax");
}

TEST(ConfigTable, TypedReadsLeaveAbsentKeysAlone) {
  ConfigDocument document = Parse("[t]\ns = \"x\"\nd = 0.5\ni = 3\nb = true\nw = \"1m30s\"\n");
  ConfigTable t = *document.root().Get("t")->AsTable();
  std::string s = "default";
  double d = 0;
  int i = 0;
  bool b = false;
  std::chrono::milliseconds w{0};
  ASSERT_TRUE(t.ReadString("t", "s", &s).ok());
  ASSERT_TRUE(t.ReadDouble("t", "d", &d, 0, 1).ok());
  ASSERT_TRUE(t.ReadInt("t", "i", &i, 0).ok());
  ASSERT_TRUE(t.ReadBool("t", "b", &b).ok());
  ASSERT_TRUE(t.ReadDuration("t", "w", &w).ok());
  EXPECT_EQ(s, "x");
  EXPECT_DOUBLE_EQ(d, 0.5);
  EXPECT_EQ(i, 3);
  EXPECT_TRUE(b);
  EXPECT_EQ(w, std::chrono::milliseconds(90000));
  std::string absent = "kept";
  ASSERT_TRUE(t.ReadString("t", "nope", &absent).ok());
  EXPECT_EQ(absent, "kept");

  Status out_of_range = t.ReadInt("t", "i", &i, 0, 2);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.error().message(),
            "/proj/culprit.toml:4:5: t.i: expected an integer from 0 to 2, found 3");
}

TEST(ConfigTable, CheckKeysSuggestsTheNearest) {
  ConfigDocument document = Parse("[t]\nbnad = 1\n");
  ConfigTable t = *document.root().Get("t")->AsTable();
  Status status = t.CheckKeys("t", {"band", "confidence"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "/proj/culprit.toml:2:1: unknown key 'bnad' in [t], did you mean 'band'?");
  EXPECT_EQ(status.error().hint(), "valid keys in [t]: band, confidence");
  EXPECT_TRUE(t.CheckKeys("t", {"bnad"}).ok());
}

TEST(ConfigValue, CommandsAndEnvironments) {
  ConfigDocument document = Parse(
      "c = [\"make\", \"-j2\"]\nempty = []\nenv = { A = \"1\", B_2 = \"\" }\nn = [\"X\", \"9\"]\n");
  ConfigTable root = document.root();
  EXPECT_EQ(*root.Get("c")->Command("c"), (std::vector<std::string>{"make", "-j2"}));
  EXPECT_FALSE(root.Get("empty")->Command("empty").ok());
  EXPECT_EQ(*root.Get("env")->Environment("env"),
            (std::map<std::string, std::string>{{"A", "1"}, {"B_2", ""}}));
  Result<std::vector<std::string>> names = root.Get("n")->EnvironmentNames("n");
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().message(),
            "/proj/culprit.toml:4:11: n[1]: expected an environment variable name (letters, "
            "digits and '_', not starting with a digit), found \"9\"");
}

TEST(ConfigSource, ResolvesAgainstTheBaseDirectory) {
  ConfigSource source(kFile, "/proj");
  EXPECT_EQ(source.Resolve("a/../b/"), std::filesystem::path("/proj/b"));
  EXPECT_EQ(source.Resolve("/abs"), std::filesystem::path("/abs"));
  EXPECT_EQ(source.At(ConfigPosition{}, "m").message(), "/proj/culprit.toml:1:1: m");
  EXPECT_EQ(source.InFile("m").message(), "/proj/culprit.toml: m");
}

}  // namespace
}  // namespace culprit
