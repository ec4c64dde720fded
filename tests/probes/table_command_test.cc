#include "probes/table_command.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace culprit {
namespace {

TEST(TableArmSpec, DefaultNamedSetsAndOverrides) {
  std::map<std::string, NamedOverride> named;
  named["serial"] = NamedOverride{"serial", {{"PARALLEL", "1"}}, {}, "one thread"};

  Result<TableArmSet> plain = ParseTableArm("default", named);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->name, "default");
  EXPECT_TRUE(plain->overrides.empty());

  Result<TableArmSet> pairs = ParseTableArm("gate:PARALLEL=1,CACHE=off", named);
  ASSERT_TRUE(pairs) << pairs.error().message();
  EXPECT_EQ(pairs->name, "gate");
  EXPECT_EQ(pairs->overrides.set,
            (std::map<std::string, std::string>{{"CACHE", "off"}, {"PARALLEL", "1"}}));

  Result<TableArmSet> one = ParseTableArm("PARALLEL=2", named);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->name, "PARALLEL=2");

  Result<TableArmSet> set = ParseTableArm("serial", named);
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(set->name, "PARALLEL=1");
  EXPECT_EQ(set->overrides.names, (std::vector<std::string>{"serial"}));
}

TEST(TableArmSpec, BadSpecsAreUsageErrorsNamingTheSpec) {
  std::map<std::string, NamedOverride> named;
  for (const std::string spec : {":X=1", "gate:", "nosuchset", "gate:1BAD=2"}) {
    Result<TableArmSet> arm = ParseTableArm(spec, named);
    ASSERT_FALSE(arm) << spec;
    EXPECT_EQ(arm.error().kind(), ErrorKind::kUsage) << spec;
    EXPECT_NE(arm.error().message().find(spec), std::string::npos) << arm.error().message();
  }
}

}  // namespace
}  // namespace culprit
