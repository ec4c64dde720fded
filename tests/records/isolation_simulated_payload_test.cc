// The simulated figures of an `isolate` record (`--simulate`): written, read back, absent
// from records without them.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "records/isolation_payload.h"

namespace culprit {
namespace {

IsolationPayload TwoConditions() {
  IsolationPayload p;
  p.conditions.resize(2);
  p.conditions[0].name = "nothing held";
  p.conditions[0].baseline = true;
  p.conditions[1].name = "rollup held";
  p.conditions[1].hold = {"rollup"};
  return p;
}

Record IsolateRecord(const IsolationPayload& p) {
  Record r;
  r.kind = RecordKind::kIsolate;
  r.details_json = IsolationPayloadToJson(p);
  return r;
}

TEST(IsolationSimulatedPayload, RoundTripsWithItsSourceAndSamples) {
  IsolationPayload p = TwoConditions();
  IsolationSimulatedPayload s;
  s.metric = "ll_misses";
  s.source = "simulated (cachegrind), valgrind-3.19.0";
  s.samples = 3;
  s.runs = 2;
  s.settle_runs = 1;
  s.values = {{262000, 262100, 261900}, {786000, 786500, 785900}};
  p.simulated = s;
  const std::string json = IsolationPayloadToJson(p);
  EXPECT_NE(json.find("\"simulated (cachegrind), valgrind-3.19.0\""), std::string::npos) << json;
  std::optional<IsolationPayload> back = ReadIsolationPayload(IsolateRecord(p));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->simulated);
  EXPECT_EQ(back->simulated->metric, "ll_misses");
  EXPECT_EQ(back->simulated->source, s.source);
  EXPECT_EQ(back->simulated->samples, 3);
  EXPECT_EQ(back->simulated->runs, 2);
  EXPECT_EQ(back->simulated->settle_runs, 1);
  EXPECT_EQ(back->simulated->values, s.values);
  EXPECT_EQ(back->simulated->failure, "");
  EXPECT_EQ(back->simulated->MedianOf(1), 786000);
  ASSERT_TRUE(back->simulated->RatioOf(1));
  EXPECT_NEAR(*back->simulated->RatioOf(1), 786000.0 / 262000.0, 1e-12);
}

TEST(IsolationSimulatedPayload, NoRatioWithoutAPositiveBaseline) {
  IsolationSimulatedPayload s;
  s.values = {{-5, 0, 3}, {100}};
  EXPECT_EQ(s.MedianOf(0), 0);
  EXPECT_FALSE(s.RatioOf(1));
  s.values = {{10}, {}};
  EXPECT_FALSE(s.MedianOf(1));
  EXPECT_FALSE(s.RatioOf(1));
  EXPECT_FALSE(s.MedianOf(7));
}

TEST(IsolationSimulatedPayload, AbsentWhenNotAskedFor) {
  IsolationPayload p = TwoConditions();
  EXPECT_EQ(IsolationPayloadToJson(p).find("simulated"), std::string::npos);
  std::optional<IsolationPayload> back = ReadIsolationPayload(IsolateRecord(p));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->simulated);
}

}  // namespace
}  // namespace culprit
