// The process layer's in-process parts; running real processes is in
// process_integration_test.cc.

#include "engine/process.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <string>

namespace culprit {
namespace {

TEST(EffectiveEnvironment, SetThenUnsetThenInherited) {
  ::setenv("CULPRIT_TEST_INHERITED", "from culprit", 1);
  ::unsetenv("CULPRIT_TEST_NEVER_SET");
  ProcessSpec spec;
  spec.set_env = {{"CULPRIT_TEST_SET", "1"}, {"CULPRIT_TEST_INHERITED", "replaced"}};
  spec.unset_env = {"CULPRIT_TEST_GONE"};
  ::setenv("CULPRIT_TEST_GONE", "x", 1);
  EXPECT_EQ(EffectiveEnvironment(spec, {"CULPRIT_TEST_SET", "CULPRIT_TEST_INHERITED",
                                        "CULPRIT_TEST_GONE", "CULPRIT_TEST_NEVER_SET"}),
            (std::map<std::string, std::string>{{"CULPRIT_TEST_SET", "1"},
                                                {"CULPRIT_TEST_INHERITED", "replaced"}}));
  ProcessSpec plain;
  EXPECT_EQ(EffectiveEnvironment(plain, {"CULPRIT_TEST_INHERITED"}),
            (std::map<std::string, std::string>{{"CULPRIT_TEST_INHERITED", "from culprit"}}));
  ::unsetenv("CULPRIT_TEST_INHERITED");
  ::unsetenv("CULPRIT_TEST_GONE");
}

}  // namespace
}  // namespace culprit
