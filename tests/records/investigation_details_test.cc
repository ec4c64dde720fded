// The flat facts of an investigation, an audit and an explain record: written in today's
// spellings, read back typed, and read from details spelled as the producers wrote them
// before the structs existed, so that archived records keep reading.

#include "records/investigation_details.h"

#include <gtest/gtest.h>

#include "records/audit_details.h"
#include "records/explain_details.h"
#include "records/placement_details.h"
#include "tests/records/archived_details.h"

namespace culprit {
namespace {

TEST(InvestigationDetails, ReadsTheDetailsAsTheLadderWroteThem) {
  // As investigate/investigation_report.cc wrote them for a later change on the path.
  const DetailMap archived = {{"investigation_run", "investigate-20261130T110000Z"},
                              {"good", "v1.0"},
                              {"bad", "v1.3"},
                              {"outcome", "isolated"},
                              {"culprit_commit", "5555555555555555555555555555555555555555"},
                              {"culprit_relevance", "on path"},
                              {"later_change", "7777777777777777777777777777777777777777"},
                              {"relevance", "on path"},
                              {"explain.5555555555", "explain-20261130T111500Z"},
                              {"explain.7777777777", "skipped: valgrind is not installed"},
                              {"wall_ms.bisect", "81234"},
                              {"wall_ms.confirm", "5120"}};
  const InvestigationDetails d = InvestigationDetails::FromDetails(archived);
  EXPECT_EQ(d.outcome, "isolated");
  EXPECT_EQ(d.later_change, "7777777777777777777777777777777777777777");
  EXPECT_EQ(d.explains.size(), 2u);
  EXPECT_EQ(d.explains.at("7777777777"), "skipped: valgrind is not installed");
  EXPECT_EQ(d.wall_ms.at("bisect"), 81234);
  EXPECT_FALSE(d.interrupted_at);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
}

TEST(InvestigationDetails, ReadsAnInterruptedLadderAndLeavesOutADamagedTime) {
  const InvestigationDetails d = InvestigationDetails::FromDetails(
      {{"investigation_run", "r"}, {"interrupted_at", "bisect"}, {"wall_ms.probes", "soon"}});
  EXPECT_EQ(d.interrupted_at, "bisect");
  EXPECT_TRUE(d.wall_ms.empty());
  EXPECT_EQ(InvestigationDetails::FromDetails({}), InvestigationDetails{});
}

TEST(AuditDetails, ReadsTheDetailsAsTheAuditWroteThem) {
  // The audit record's, as investigate/audit_report.cc wrote them.
  const DetailMap archived = {{"published_value", "12.5"},
                              {"published_revision", "v1.0"},
                              {"published_commit", "1111111111111111111111111111111111111111"},
                              {"published_source", "docs/results.md"},
                              {"published_record", "compare-20261101T090000Z"},
                              {"today_revision", "HEAD"},
                              {"order_way", "registry command"},
                              {"registry_before", "load,scan"},
                              {"published_calibration_ms", "101.2"},
                              {"calibration_now_ms", "98.75"}};
  const AuditDetails d = AuditDetails::FromDetails(archived);
  EXPECT_EQ(d.order_way, AuditOrderWay::kRegistryCommand);
  EXPECT_EQ(d.registry_before, (std::vector<std::string>{"load", "scan"}));
  ASSERT_TRUE(d.published_value);
  EXPECT_DOUBLE_EQ(*d.published_value, 12.5);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
}

TEST(AuditDetails, ReadsTheFactorsRecords) {
  // The host drift record's, and the order sitting's through the harness.
  const DetailMap drift = {{"audit_factor", "host drift"},
                           {"cross_sitting", "true"},
                           {"published_value", "12.5"},
                           {"published_source", "docs/results.md"},
                           {"now_samples_from", "compare-20261130T110000Z"}};
  const AuditDetails d = AuditDetails::FromDetails(drift);
  EXPECT_EQ(d.audit_factor, AuditFactorKind::kHostDrift);
  EXPECT_EQ(d.cross_sitting, true);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, drift);
  const DetailMap order = {{"audit_factor", "order"},
                           {"registry_before", ""},
                           {"order_way", "harness"},
                           {"runs_per_sample", "5"}};
  const AuditDetails o = AuditDetails::FromDetails(order);
  EXPECT_EQ(o.audit_factor, AuditFactorKind::kOrder);
  EXPECT_EQ(o.registry_before, std::vector<std::string>{});
  EXPECT_EQ(o.runs_per_sample, 5);
  written.clear();
  o.WriteTo(&written);
  EXPECT_EQ(written, order);
  EXPECT_FALSE(AuditDetails::FromDetails({{"order_way", "by hand"}}).order_way);
}

TEST(ExplainDetails, ReadsTheDetailsAsExplainWroteThem) {
  // As investigate/explain_report.cc wrote them (the placement's aslr beside them).
  const DetailMap archived = {{"parent", "4444444444444444444444444444444444444444"},
                              {"change", "5555555555555555555555555555555555555555"},
                              {"metric", "instructions"},
                              {"metric_source", "cachegrind"},
                              {"query_metric", "wall_ms"},
                              {"cache_sim", "no"},
                              {"valgrind", "valgrind-3.22.0"},
                              {"runs_per_side", "1"},
                              {"changed_files", "src/index.cc"},
                              {"code_path", "src/"}};
  const ExplainDetails d = ExplainDetails::FromDetails(archived);
  EXPECT_EQ(d.cache_sim, false);
  EXPECT_EQ(d.runs_per_side, 1);
  EXPECT_EQ(d.changed_files, std::vector<std::string>{"src/index.cc"});
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
  EXPECT_EQ(ExplainDetails::FromDetails({}), ExplainDetails{});
}

TEST(InvestigationDetails, ReadsADemoInvestigationRecordWrittenBeforeTheStruct) {
  const InvestigationDetails d = InvestigationDetails::FromDetails(archived::kDemoInvestigation);
  EXPECT_EQ(d.relevance, "off path");
  EXPECT_EQ(d.explains.size(), 2u);
  EXPECT_EQ(d.wall_ms.size(), 6u);
  EXPECT_EQ(d.wall_ms.at("relevance"), 0);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived::kDemoInvestigation);
}

TEST(ExplainDetails, ReadsADemoExplainRecordWrittenBeforeTheStruct) {
  const ExplainDetails d = ExplainDetails::FromDetails(archived::kDemoExplain);
  EXPECT_EQ(d.metric_source, "cachegrind");
  EXPECT_EQ(d.cache_sim, false);
  EXPECT_EQ(PlacementDetails::FromDetails(archived::kDemoExplain).aslr, false);
  DetailMap written;
  d.WriteTo(&written);
  PlacementDetails::FromDetails(archived::kDemoExplain).WriteTo(&written);
  EXPECT_EQ(written, archived::kDemoExplain);
}

}  // namespace
}  // namespace culprit
