// The flat facts of a sitting (a comparison's, a table's, a run's) and where its runs ran:
// written in today's spellings, read back typed, and read from details spelled as the
// producers wrote them before the structs existed, so that archived records keep reading.

#include "records/comparison_details.h"

#include <gtest/gtest.h>

#include "records/placement_details.h"
#include "records/run_details.h"
#include "records/sitting_details.h"
#include "records/table_details.h"
#include "tests/records/archived_details.h"

namespace culprit {
namespace {

// A compare record's details as probes/comparison.cc wrote them (failures, tails, secondary
// figures, the calibrations between looks, the placement).
const DetailMap kArchivedCompare = {
    {"alpha_spending", "pocock-increments"},
    {"aslr", "on"},
    {"better", "lower"},
    {"calibration_change", "+0.0123"},
    {"checkpoint_calibrations_ms", "101.9000,102.2000"},
    {"cpus", "any"},
    {"failure_test_p", "0.4737"},
    {"failures", "A 1/30 failed, 0 timed out; B 0/30 failed, 0 timed out"},
    {"failures_differ", "false"},
    {"mean_ratio", "1.214 [1.187, 1.242]"},
    {"metric", "wall_ms"},
    {"nominal_confidence", "0.95000"},
    {"pairs_censored", "0"},
    {"pairs_dropped", "1"},
    {"secondary.cpu", "1.201 [1.180, 1.224] (A 10.1 ms, B 12.13 ms; 29 pairs)"},
    {"secondary.major_faults", "unavailable: not known in any kept pair"},
    {"secondary_confidence", "95%"},
    {"seed", "18446744073709551615"},
    {"tails", "beyond x1.100: B slower 12, faster 0; p = 0.0002441"},
};

TEST(ComparisonDetails, ReadsTheDetailsAsTheComparisonWroteThem) {
  const ComparisonDetails d = ComparisonDetails::FromDetails(kArchivedCompare);
  EXPECT_EQ(d.sitting.seed, 18446744073709551615ULL);
  ASSERT_TRUE(d.sitting.calibration_change);
  EXPECT_DOUBLE_EQ(*d.sitting.calibration_change, 0.0123);
  EXPECT_EQ(d.sitting.alpha_spending, std::string(kPocockIncrements));
  EXPECT_EQ(d.better, MetricDirection::kLowerIsBetter);
  EXPECT_EQ(d.metric, "wall_ms");
  EXPECT_FALSE(d.metric_source);
  EXPECT_EQ(d.pairs_dropped, 1);
  EXPECT_EQ(d.failures_differ, false);
  ASSERT_TRUE(d.checkpoint_calibrations_ms);
  EXPECT_EQ(d.checkpoint_calibrations_ms->size(), 2u);
  EXPECT_EQ(d.secondary.size(), 2u);
  EXPECT_EQ(d.secondary.at("major_faults"), "unavailable: not known in any kept pair");
  EXPECT_EQ(d.secondary_confidence, "95%");
  EXPECT_FALSE(d.decided_by);
  // Written back with the placement, the details are the same text, key for key.
  DetailMap written;
  d.WriteTo(&written);
  PlacementDetails::FromDetails(kArchivedCompare).WriteTo(&written);
  EXPECT_EQ(written, kArchivedCompare);
}

TEST(ComparisonDetails, ReadsANearDeterministicSittingAndThePlansFacts) {
  const DetailMap archived = {{"decided_by", "near-deterministic rule"},
                              {"better", "higher"},
                              {"metric", "instructions"},
                              {"metric_source", "perf_event"},
                              {"override_sets", "no-cache,one-thread"},
                              {"judge", "git bisect run"}};
  const ComparisonDetails d = ComparisonDetails::FromDetails(archived);
  EXPECT_EQ(d.decided_by, DecidedBy::kNearDeterministicRule);
  EXPECT_EQ(DecidedByName(*d.decided_by), "near-deterministic rule");
  EXPECT_EQ(d.better, MetricDirection::kHigherIsBetter);
  EXPECT_EQ(d.metric_source, "perf_event");  // whatever counted it, kept as written
  EXPECT_EQ(d.override_sets, (std::vector<std::string>{"no-cache", "one-thread"}));
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
}

TEST(ComparisonDetails, AMissingOrDamagedValueReadsAsNone) {
  EXPECT_EQ(ComparisonDetails::FromDetails({}), ComparisonDetails{});
  const ComparisonDetails d = ComparisonDetails::FromDetails({{"better", "faster"},
                                                              {"seed", "-1"},
                                                              {"failures_differ", "maybe"},
                                                              {"decided_by", "a coin"},
                                                              {"checkpoint_calibrations_ms", "1,x"},
                                                              {"pairs_dropped", "1.5"}});
  EXPECT_FALSE(d.better);
  EXPECT_FALSE(d.sitting.seed);
  EXPECT_FALSE(d.failures_differ);
  EXPECT_FALSE(d.decided_by);
  EXPECT_FALSE(d.checkpoint_calibrations_ms);
  EXPECT_FALSE(d.pairs_dropped);
}

TEST(ComparisonDetails, AnOlderCorpusRecordsFiguresStillRead) {
  // bench/fuzz/corpus/record_json/probe.json: fewer decimals than written today.
  const ComparisonDetails d = ComparisonDetails::FromDetails(
      {{"checkpoint_calibrations_ms", "101.9,102.2"}, {"pairs_dropped", "0"}, {"seed", "42"}});
  EXPECT_EQ(d.checkpoint_calibrations_ms, (std::vector<double>{101.9, 102.2}));
  EXPECT_EQ(d.pairs_dropped, 0);
  EXPECT_EQ(d.sitting.seed, 42u);
}

TEST(PlacementDetails, ReadsCpusAndAslrAsWritten) {
  const PlacementDetails pinned =
      PlacementDetails::FromDetails({{"cpus", "2-3,6"}, {"aslr", "off"}});
  EXPECT_EQ(pinned.cpus, "2-3,6");
  EXPECT_EQ(pinned.aslr, false);
  EXPECT_FALSE(PlacementDetails::FromDetails({{"aslr", "sometimes"}}).aslr);
  DetailMap written;
  PlacementDetails explain;
  explain.aslr = false;  // explain says only that ASLR was off
  explain.WriteTo(&written);
  EXPECT_EQ(written, (DetailMap{{"aslr", "off"}}));
}

TEST(RunDetails, ReadsAndWritesARunsFigures) {
  const DetailMap archived = {{"median", "12.3457"},
                              {"min", "11.9"},
                              {"max", "14.02"},
                              {"mad", "0.215"},
                              {"resources", "wall 14.2 ms, cpu 13.9 ms, max_rss 68180 KiB"}};
  const RunDetails d = RunDetails::FromDetails(archived);
  ASSERT_TRUE(d.median);
  EXPECT_DOUBLE_EQ(*d.median, 12.3457);
  EXPECT_EQ(FormatRunFigure(d.max), "14.02");
  EXPECT_EQ(FormatRunFigure(std::nullopt), "?");
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
  EXPECT_EQ(RunDetails::FromDetails({{"median", "n/a"}}), RunDetails{});
}

TEST(TableDetails, ReadsAndWritesATablesDetails) {
  // As probes/table_command.cc wrote them for `table --check` in registry order.
  const DetailMap archived = {{"seed", "7"},
                              {"cells_tested", "6"},
                              {"cell_alpha", "0.00833333"},
                              {"multiplicity", "bonferroni"},
                              {"alpha_spending", "pocock-increments"},
                              {"tail_sighting", "cell-alpha"},
                              {"calibration_change", "-0.0040"},
                              {"check", "published.csv"},
                              {"order", "registry"}};
  const TableDetails d = TableDetails::FromDetails(archived);
  EXPECT_EQ(d.sitting.seed, 7u);
  EXPECT_EQ(d.cells_tested, 6);
  ASSERT_TRUE(d.cell_alpha);
  EXPECT_NEAR(*d.cell_alpha, 0.05 / 6, 1e-8);
  EXPECT_EQ(d.multiplicity, std::string(kBonferroni));
  EXPECT_EQ(d.order, std::string(kRegistryOrder));
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
}

TEST(ComparisonDetails, ReadsADemoProbeRecordWrittenBeforeTheStruct) {
  const ComparisonDetails d = ComparisonDetails::FromDetails(archived::kDemoProbe);
  EXPECT_EQ(d.override_sets, std::vector<std::string>{"parallel_gate"});
  EXPECT_EQ(d.metric, "regex");
  EXPECT_EQ(d.secondary.size(), 6u);
  EXPECT_EQ(d.sitting.seed, 15211931542535782911ULL);
  const PlacementDetails placement = PlacementDetails::FromDetails(archived::kDemoProbe);
  EXPECT_EQ(placement.cpus, std::string(kAnyCpu));
  EXPECT_EQ(placement.aslr, true);
  DetailMap written;
  d.WriteTo(&written);
  placement.WriteTo(&written);
  EXPECT_EQ(written, archived::kDemoProbe);
}

TEST(TableDetails, ReadsADemoTableRecordWrittenBeforeTheStruct) {
  const TableDetails d = TableDetails::FromDetails(archived::kDemoTable);
  EXPECT_EQ(d.cells_tested, 3);
  EXPECT_EQ(d.order, std::string(kRegistryOrder));
  DetailMap written;
  d.WriteTo(&written);
  PlacementDetails::FromDetails(archived::kDemoTable).WriteTo(&written);
  EXPECT_EQ(written, archived::kDemoTable);
}

}  // namespace
}  // namespace culprit
