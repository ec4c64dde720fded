#include "engine/metric.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

ProcessResult Output(std::string stdout_text) {
  ProcessResult r;
  r.outcome = ProcessOutcome::kExited;
  r.exit_code = 0;
  r.stdout_bytes = stdout_text.size();
  r.stdout_text = std::move(stdout_text);
  r.wall_ms = 12.5;
  return r;
}

MetricRule Regex(std::string pattern) { return {MetricRule::Kind::kRegex, std::move(pattern)}; }
MetricRule Json(std::string path) { return {MetricRule::Kind::kJson, std::move(path)}; }

TEST(MetricTest, WallIsTheProcessWallTime) {
  Result<double> v = ExtractMetric({}, Output("whatever"));
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, 12.5);
}

TEST(MetricTest, WallIsConvertedToTheQueryUnit) {
  MetricRule seconds;
  seconds.wall_units_per_ms = *WallUnitsPerMillisecond("s");
  Result<double> v = ExtractMetric(seconds, Output("whatever"));
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, 0.0125);
  EXPECT_DOUBLE_EQ(*WallUnitsPerMillisecond("us"), 1000.0);
  EXPECT_DOUBLE_EQ(*WallUnitsPerMillisecond("ns"), 1e6);
  EXPECT_DOUBLE_EQ(*WallUnitsPerMillisecond("ms"), 1.0);
  Result<double> ops = WallUnitsPerMillisecond("ops/s");
  ASSERT_FALSE(ops.ok());
  EXPECT_NE(ops.error().message().find("ns, us, ms, s, not 'ops/s'"), std::string::npos);
}

TEST(MetricTest, RegexTakesFirstGroupOfFirstMatch) {
  Result<double> v = ExtractMetric(Regex("median_ms=([0-9.]+)"),
                                   Output("warming up\nmedian_ms=41.75\nmedian_ms=99\n"));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_DOUBLE_EQ(*v, 41.75);
}

TEST(MetricTest, RegexAnchorsWorkPerLine) {
  Result<double> v =
      ExtractMetric(Regex("^total ([0-9e.+-]+)$"), Output("subtotal 1\ntotal 2.5e3\n"));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_DOUBLE_EQ(*v, 2500);
}

TEST(MetricTest, RegexNoMatchShowsTail) {
  std::string out;
  for (int i = 1; i <= 8; ++i) out += "line " + std::to_string(i) + "\n";
  Result<double> v = ExtractMetric(Regex("median_ms=([0-9.]+)"), Output(out));
  ASSERT_FALSE(v.ok());
  const std::string& m = v.error().message();
  EXPECT_EQ(m.rfind("no match for /median_ms=([0-9.]+)/ in the output; last lines:\n", 0), 0u) << m;
  EXPECT_NE(m.find("line 8"), std::string::npos);
  EXPECT_NE(m.find("line 4"), std::string::npos);
  EXPECT_EQ(m.find("line 3"), std::string::npos);  // Only the last 5 lines.
}

TEST(MetricTest, RegexNoMatchOnEmptyOutput) {
  Result<double> v = ExtractMetric(Regex("ms=([0-9]+)"), Output(""));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("printed nothing"), std::string::npos);
}

TEST(MetricTest, RegexMatchThatIsNotANumber) {
  Result<double> v = ExtractMetric(Regex("median_ms=(\\S+)"), Output("median_ms=fast\n"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("'fast' is not a number"), std::string::npos)
      << v.error().message();
  EXPECT_FALSE(ExtractMetric(Regex("ms=(\\S+)"), Output("ms=1.5x\n")).ok());
  EXPECT_FALSE(ExtractMetric(Regex("ms=(\\S*)"), Output("ms=\n")).ok());
  EXPECT_FALSE(ExtractMetric(Regex("ms=(\\S+)"), Output("ms=inf\n")).ok());
  // base's ParseFiniteNumber, as every reader of numbers: one sign at most.
  EXPECT_FALSE(ExtractMetric(Regex("ms=(\\S+)"), Output("ms=+-1\n")).ok());
  Result<double> plus = ExtractMetric(Regex("ms=(\\S+)"), Output("ms=+1.5\n"));
  ASSERT_TRUE(plus.ok()) << plus.error().message();
  EXPECT_EQ(*plus, 1.5);
}

TEST(MetricTest, TruncatedOutputSaysSoInTheHint) {
  ProcessResult r = Output("lots of output\n");
  r.stdout_bytes = 5'000'000;
  Result<double> v = ExtractMetric(Regex("ms=([0-9]+)"), r);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().hint().find("5000000"), std::string::npos) << v.error().hint();
}

TEST(MetricTest, InvalidRegexIsAUsageError) {
  std::string detail;
  EXPECT_EQ(CheckMetricRule(Regex("ms=([0-9"), &detail), MetricRuleProblem::kRegexInvalid);
  EXPECT_FALSE(detail.empty());
  EXPECT_EQ(CheckMetricRule(Regex("ms=[0-9]+")), MetricRuleProblem::kRegexWithoutGroup);
  EXPECT_EQ(CheckMetricRule(Regex("ms=([0-9]+)")), MetricRuleProblem::kNone);
  Result<double> no_group = ExtractMetric(Regex("ms=[0-9]+"), Output("ms=3\n"));
  ASSERT_FALSE(no_group.ok());
  EXPECT_EQ(no_group.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(no_group.error().message().find("no capture group"), std::string::npos);
  Result<double> bad = ExtractMetric(Regex("ms=([0-9"), Output("ms=3\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kUsage);
}

TEST(MetricTest, ANumberTooLongForTheRegexCompilerIsRefused) {
  // libstdc++ reads a back-reference's or a brace count's number into a long
  // without checking for overflow (undefined behaviour; found by the config
  // fuzz target): such a number is refused before std::regex sees it.
  std::string detail;
  EXPECT_EQ(CheckMetricRule(Regex("(a)\\55555555555555555555"), &detail),
            MetricRuleProblem::kRegexInvalid);
  EXPECT_NE(detail.find("\\5555555555"), std::string::npos) << detail;
  detail.clear();
  EXPECT_EQ(CheckMetricRule(Regex("(a){1,99999999999999999999}"), &detail),
            MetricRuleProblem::kRegexInvalid);
  EXPECT_NE(detail.find("{1,9999999999"), std::string::npos) << detail;
  // Long digits elsewhere are only characters to match.
  EXPECT_EQ(CheckMetricRule(Regex("id=12345678901234567890 ms=([0-9]+)")),
            MetricRuleProblem::kNone);
  EXPECT_EQ(CheckMetricRule(Regex("[{12345678901234567890}]+ms=([0-9]{1,3})")),
            MetricRuleProblem::kNone);
  EXPECT_EQ(CheckMetricRule(Regex("\\{12345678901234567890\\} ms=([0-9]+)")),
            MetricRuleProblem::kNone);
  EXPECT_EQ(CheckMetricRule(Regex("(a)\\1 ms=([0-9]{2})")), MetricRuleProblem::kNone);
}

TEST(MetricTest, JsonWholeOutput) {
  Result<double> v =
      ExtractMetric(Json("result.ms"), Output("{\n \"result\": {\"ms\": 7.25}\n}\n"));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_DOUBLE_EQ(*v, 7.25);
}

TEST(MetricTest, JsonLastObjectLine) {
  Result<double> v = ExtractMetric(
      Json("result.ms"),
      Output("checksum=1\n{\"result\":{\"ms\":1}}\n{\"result\":{\"ms\":3.5}}\ndone\n"));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_DOUBLE_EQ(*v, 3.5);
}

TEST(MetricTest, JsonArrayIndex) {
  Result<double> v = ExtractMetric(Json("runs.1.ms"), Output("{\"runs\":[{\"ms\":1},{\"ms\":2}]}"));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_DOUBLE_EQ(*v, 2);
  EXPECT_FALSE(ExtractMetric(Json("runs.2.ms"), Output("{\"runs\":[{\"ms\":1},{\"ms\":2}]}")).ok());
}

TEST(MetricTest, JsonFieldAbsent) {
  Result<double> v = ExtractMetric(Json("result.ms"), Output("{\"result\":{\"us\":3}}\n"));
  ASSERT_FALSE(v.ok());
  const std::string& m = v.error().message();
  EXPECT_EQ(m.rfind("no JSON field 'result.ms' in the output ('result' is object without 'ms')", 0),
            0u)
      << m;
  EXPECT_NE(m.find("{\"result\":{\"us\":3}}"), std::string::npos);  // The tail.
}

TEST(MetricTest, JsonNoObjectAtAll) {
  Result<double> v = ExtractMetric(Json("result.ms"), Output("median_ms=3\n"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("no JSON object in the output"), std::string::npos);
}

TEST(MetricTest, JsonFieldNotANumber) {
  Result<double> v = ExtractMetric(Json("result.ms"), Output("{\"result\":{\"ms\":\"3\"}}"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("is not a number: it is string \"3\""), std::string::npos)
      << v.error().message();
  EXPECT_FALSE(ExtractMetric(Json("result"), Output("{\"result\":{\"ms\":3}}")).ok());
}

TEST(MetricTest, JsonPathValidation) {
  EXPECT_EQ(CheckMetricRule(Json("result..ms")), MetricRuleProblem::kJsonPathInvalid);
  EXPECT_EQ(CheckMetricRule(Json(".result")), MetricRuleProblem::kJsonPathInvalid);
  EXPECT_EQ(CheckMetricRule(Json("")), MetricRuleProblem::kJsonPathInvalid);
  EXPECT_EQ(CheckMetricRule(Json("result.ms")), MetricRuleProblem::kNone);
}

TEST(MetricTest, FailedRunHasNoMetric) {
  ProcessResult r = Output("median_ms=5\n");
  r.exit_code = 3;
  r.stderr_text = "error: table not found\n";
  Result<double> v = ExtractMetric(Regex("median_ms=([0-9.]+)"), r);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("exited with status 3"), std::string::npos);
  EXPECT_NE(v.error().message().find("table not found"), std::string::npos);

  ProcessResult crashed = Output("");
  crashed.outcome = ProcessOutcome::kSignaled;
  crashed.signal = 11;
  EXPECT_FALSE(ExtractMetric({}, crashed).ok());  // Not even wall time.
}

TEST(MetricTest, DescribeRule) {
  EXPECT_EQ(DescribeMetricRule({}), "wall time");
  EXPECT_EQ(DescribeMetricRule(Regex("a=(1)")), "/a=(1)/");
  EXPECT_EQ(DescribeMetricRule(Json("a.b")), "JSON field 'a.b'");
}

// A ".*" regex on one long line overflowed the stack (exit 139, no record) in
// libstdc++'s recursive matcher: the line is not searched, and the failure says why.
TEST(MetricTest, RegexSkipsALineLongerThanTheLimitAndSaysSo) {
  std::string line(50 * 1024, 'a');
  Result<double> v = ExtractMetric(Regex(".*ms=([0-9]+)"), Output(line + " ms=7\n"));
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find(fmt::format(
                "a line of {} bytes, longer than the regex limit of {} bytes: it was not searched",
                line.size() + 5, kMaxRegexLineBytes)),
            std::string::npos)
      << v.error().message();
  // The metric on a line of its own is still found past the long one.
  Result<double> found = ExtractMetric(Regex(".*ms=([0-9]+)"), Output(line + "\nms=7\n"));
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, 7);
  // A line at the limit is searched.
  std::string at_limit(kMaxRegexLineBytes - 5, 'a');
  Result<double> limit = ExtractMetric(Regex(".*ms=([0-9]+)"), Output(at_limit + " ms=9\n"));
  ASSERT_TRUE(limit) << limit.error().message();
  EXPECT_EQ(*limit, 9);
}

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A JSON metric nested 200k deep overflowed the stack: it is not read, and the metric is
// not found, with the limit said.
TEST(MetricTest, JsonNestedTooDeepIsNotFoundNotCrashed) {
  for (const std::string& out :
       {"{\"ms\": " + Nested(200000) + "}\n", "log line\n{\"ms\": " + Nested(200000) + "}\n"}) {
    Result<double> v = ExtractMetric(Json("ms"), Output(out));
    ASSERT_FALSE(v);
    EXPECT_NE(v.error().message().find("no JSON object in the output to take field 'ms' from"),
              std::string::npos)
        << v.error().message().substr(0, 300);
    EXPECT_NE(v.error().message().find("nested more than 512 levels deep"), std::string::npos)
        << v.error().message().substr(0, 300);
  }
  // Nesting within the limit is read as before, and shown short when it is no number.
  Result<double> shallow = ExtractMetric(Json("ms"), Output("{\"ms\": " + Nested(500) + "}"));
  ASSERT_FALSE(shallow);
  EXPECT_NE(shallow.error().message().find("is not a number: it is array [[[["), std::string::npos)
      << shallow.error().message();
  EXPECT_LT(shallow.error().message().size(), 400u);
}

}  // namespace
}  // namespace culprit
