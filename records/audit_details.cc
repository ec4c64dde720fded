#include "records/audit_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as audit records have spelled them from the start.
constexpr std::string_view kAuditFactor = "audit_factor";
constexpr std::string_view kRegistryBefore = "registry_before";
constexpr std::string_view kOrderWay = "order_way";
constexpr std::string_view kRunsPerSample = "runs_per_sample";
constexpr std::string_view kCrossSitting = "cross_sitting";
constexpr std::string_view kPublishedValue = "published_value";
constexpr std::string_view kPublishedSource = "published_source";
constexpr std::string_view kPublishedRevision = "published_revision";
constexpr std::string_view kPublishedCommit = "published_commit";
constexpr std::string_view kPublishedRecord = "published_record";
constexpr std::string_view kTodayRevision = "today_revision";
constexpr std::string_view kNowSamplesFrom = "now_samples_from";
constexpr std::string_view kPublishedCalibrationMs = "published_calibration_ms";
constexpr std::string_view kCalibrationNowMs = "calibration_now_ms";

constexpr std::string_view kFactorNames[] = {"order", "host drift"};
constexpr std::string_view kOrderWayNames[] = {"registry command", "harness"};

void PutNumber(DetailMap* out, std::string_view key, const std::optional<double>& value,
               bool six_digits) {
  if (!value) return;
  (*out)[std::string(key)] =
      six_digits ? fmt::format("{:.6g}", *value) : fmt::format("{:.4g}", *value);
}

}  // namespace

std::string_view AuditFactorKindName(AuditFactorKind kind) { return NameIn(kFactorNames, kind); }
std::string_view AuditOrderWayName(AuditOrderWay way) { return NameIn(kOrderWayNames, way); }

void AuditDetails::WriteTo(DetailMap* out) const {
  PutEnum(kFactorNames, out, kAuditFactor, audit_factor);
  PutList(out, kRegistryBefore, registry_before);
  PutEnum(kOrderWayNames, out, kOrderWay, order_way);
  PutCount(out, kRunsPerSample, runs_per_sample);
  PutFlag(out, kCrossSitting, cross_sitting, "true", "false");
  PutNumber(out, kPublishedValue, published_value, /*six_digits=*/true);
  PutText(out, kPublishedSource, published_source);
  PutText(out, kPublishedRevision, published_revision);
  PutText(out, kPublishedCommit, published_commit);
  PutText(out, kPublishedRecord, published_record);
  PutText(out, kTodayRevision, today_revision);
  PutText(out, kNowSamplesFrom, now_samples_from);
  PutNumber(out, kPublishedCalibrationMs, published_calibration_ms, /*six_digits=*/false);
  PutNumber(out, kCalibrationNowMs, calibration_now_ms, /*six_digits=*/false);
}

AuditDetails AuditDetails::FromDetails(const DetailMap& in) {
  AuditDetails d;
  d.audit_factor = EnumIn<AuditFactorKind>(kFactorNames, in, kAuditFactor);
  d.registry_before = ListIn(in, kRegistryBefore);
  d.order_way = EnumIn<AuditOrderWay>(kOrderWayNames, in, kOrderWay);
  d.runs_per_sample = CountIn(in, kRunsPerSample);
  d.cross_sitting = FlagIn(in, kCrossSitting, "true", "false");
  d.published_value = NumberIn(in, kPublishedValue);
  d.published_source = TextIn(in, kPublishedSource);
  d.published_revision = TextIn(in, kPublishedRevision);
  d.published_commit = TextIn(in, kPublishedCommit);
  d.published_record = TextIn(in, kPublishedRecord);
  d.today_revision = TextIn(in, kTodayRevision);
  d.now_samples_from = TextIn(in, kNowSamplesFrom);
  d.published_calibration_ms = NumberIn(in, kPublishedCalibrationMs);
  d.calibration_now_ms = NumberIn(in, kCalibrationNowMs);
  return d;
}

}  // namespace culprit
