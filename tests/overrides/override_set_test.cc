#include "overrides/override_set.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace culprit {
namespace {

using Env = std::map<std::string, std::string>;
using Args = std::vector<std::string>;

std::map<std::string, NamedOverride> NamedSets() {
  return {
      {"parallel_gate",
       {"parallel_gate",
        {{"PARALLEL", "1"}},
        {},
        "the recalibrated gate put 1M events on the slow path"}},
      {"no_jit", {"no_jit", {{"JIT", "off"}}, {"JIT_CACHE"}, "the JIT costs more than it saves"}},
      {"quiet", {"quiet", {}, {"VERBOSE"}, ""}},
  };
}

Result<OverrideSet> Build(const Args& overrides, const Args& unsets = {}) {
  return BuildOverrideSet(overrides, unsets, NamedSets());
}

std::string ErrorOf(const Args& overrides, const Args& unsets = {}) {
  auto result = Build(overrides, unsets);
  EXPECT_FALSE(result.ok());
  if (result) return "";
  EXPECT_EQ(result.error().kind(), ErrorKind::kUsage);
  return result.error().message();
}

TEST(BuildOverrideSet, KeyValuePassedVerbatim) {
  auto set = Build({"PARALLEL=1", "OPTS=--a=b --c", "EMPTY="});
  ASSERT_TRUE(set.ok()) << set.error().message();
  EXPECT_EQ(set->set, (Env{{"EMPTY", ""}, {"OPTS", "--a=b --c"}, {"PARALLEL", "1"}}));
  EXPECT_TRUE(set->unset.empty());
  EXPECT_TRUE(set->names.empty());
  EXPECT_EQ(set->hypothesis, "");
  EXPECT_FALSE(set->empty());
  EXPECT_EQ(set->Label(), "EMPTY= OPTS=--a=b --c PARALLEL=1");
}

TEST(BuildOverrideSet, NamedSetsBringTheirHypotheses) {
  auto set = Build({"parallel_gate", "no_jit", "EXTRA=2"}, {"HOME_HINT"});
  ASSERT_TRUE(set.ok()) << set.error().message();
  EXPECT_EQ(set->set, (Env{{"EXTRA", "2"}, {"JIT", "off"}, {"PARALLEL", "1"}}));
  EXPECT_EQ(set->unset, (Args{"HOME_HINT", "JIT_CACHE"}));
  EXPECT_EQ(set->names, (Args{"parallel_gate", "no_jit"}));
  EXPECT_EQ(set->hypothesis,
            "the recalibrated gate put 1M events on the slow path; the JIT costs more than it "
            "saves");
  EXPECT_EQ(set->Label(), "EXTRA=2 JIT=off PARALLEL=1 -HOME_HINT -JIT_CACHE");
}

TEST(BuildOverrideSet, RepeatsThatAgreeAreHarmless) {
  auto set = Build({"parallel_gate", "PARALLEL=1", "parallel_gate"}, {"X", "X"});
  ASSERT_TRUE(set.ok()) << set.error().message();
  EXPECT_EQ(set->set, (Env{{"PARALLEL", "1"}}));
  EXPECT_EQ(set->unset, (Args{"X"}));
  EXPECT_EQ(set->names, (Args{"parallel_gate"}));
  EXPECT_EQ(set->hypothesis, "the recalibrated gate put 1M events on the slow path");
}

TEST(BuildOverrideSet, EmptySet) {
  auto set = Build({});
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->empty());
  EXPECT_EQ(set->Label(), "(none)");
}

TEST(BuildOverrideSet, Errors) {
  EXPECT_EQ(ErrorOf({"1X=2"}), "--override 1X=2: '1X' is not a valid environment variable name");
  EXPECT_EQ(ErrorOf({"=2"}), "--override =2: '' is not a valid environment variable name");
  EXPECT_EQ(ErrorOf({}, {"A-B"}), "--unset A-B: 'A-B' is not a valid environment variable name");
  EXPECT_EQ(ErrorOf({"paralel_gate"}),
            "--override paralel_gate: no override set named 'paralel_gate', did you mean "
            "'parallel_gate'?");
  EXPECT_EQ(ErrorOf({"PARALLEL=1", "PARALLEL=2"}),
            "--override PARALLEL=2: PARALLEL is set twice, to '1' and to '2'");
  EXPECT_EQ(ErrorOf({"PARALLEL=4", "parallel_gate"}),
            "override set 'parallel_gate': PARALLEL is set twice, to '4' and to '1'");
  EXPECT_EQ(ErrorOf({"VERBOSE=1", "quiet"}), "override set 'quiet': VERBOSE is both set and unset");
  EXPECT_EQ(ErrorOf({"A=1"}, {"A"}), "--unset A: A is both set and unset");
}

TEST(BuildOverrideSet, UnknownNameHintListsTheSets) {
  auto result = Build({"gate"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().hint(),
            "write K=V to set a variable, or one of the override sets in culprit.toml: no_jit, "
            "parallel_gate, quiet");
  auto none = BuildOverrideSet(Args{"gate"}, Args{}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().hint().find("no override sets are defined"), std::string::npos);
}

TEST(ApplyOverrides, SetsReplacesAndRemoves) {
  auto set = Build({"PARALLEL=1", "PATH=/opt/bin"}, {"VERBOSE", "ABSENT"});
  ASSERT_TRUE(set.ok());
  Env before = {{"PATH", "/usr/bin"}, {"VERBOSE", "1"}, {"KEEP", "k"}};
  EXPECT_EQ(ApplyOverrides(*set, before),
            (Env{{"KEEP", "k"}, {"PARALLEL", "1"}, {"PATH", "/opt/bin"}}));
  EXPECT_EQ(ApplyOverrides(OverrideSet{}, before), before);
}

}  // namespace
}  // namespace culprit
