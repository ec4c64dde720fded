#include "engine/build_entry.h"

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "base/strings.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

constexpr size_t kBuildLogTailLines = 20;

/// How to have an unbuildable commit tried again, for the user.
std::string RetryAdvice(const BuildFailure& failure, std::string_view rebuild) {
  if (!failure.timed_out) return fmt::format("{} tries again", rebuild);
  return fmt::format("tried again once build_timeout is longer than {:g} s, or with {}",
                     failure.timeout.count() / 1000.0, rebuild);
}

}  // namespace

std::optional<nlohmann::json> ReadEntry(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / kEntryFile, ec)) return std::nullopt;
  Result<std::string> text = ReadFile(dir / kEntryFile);
  if (!text) return std::nullopt;
  nlohmann::json entry = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // A field of the wrong type is refused here: json::value() would otherwise throw on it.
  if (!entry.is_object()) return std::nullopt;
  for (const char* key : {"schema", "status", "failure", "reason", "built_at", "commit", "tree"}) {
    if (entry.contains(key) && !entry[key].is_string()) return std::nullopt;
  }
  for (const char* key : {"seconds", "built_at_unix", "timeout_ms"}) {
    if (entry.contains(key) && !entry[key].is_number()) return std::nullopt;
  }
  if (entry.value("schema", "") != kEntrySchema) return std::nullopt;
  return entry;
}

Memory Recall(const nlohmann::json& entry, std::chrono::milliseconds timeout) {
  if (entry.value("status", "") == "buildable") return Memory::kBuildable;
  if (entry.value("failure", kFailed) == std::string_view(kTimedOut)) {
    std::chrono::milliseconds used(entry.value("timeout_ms", int64_t{0}));
    if (timeout.count() <= 0 || timeout > used) return Memory::kRetry;
  }
  return Memory::kUnbuildable;
}

BuildFailure RememberedFailure(const std::string& commit, const fs::path& dir,
                               const nlohmann::json& entry) {
  BuildFailure failure{commit, entry.value("reason", "the build failed"), dir / kLogFile,
                       LogTail(dir / kLogFile)};
  failure.timed_out = entry.value("failure", kFailed) == std::string_view(kTimedOut);
  failure.timeout = std::chrono::milliseconds(entry.value("timeout_ms", int64_t{0}));
  return failure;
}

std::string LogTail(const fs::path& log) {
  Result<std::string> text = ReadFile(log);
  return text ? TailLines(*text, kBuildLogTailLines) : std::string();
}

Error UnbuildableError(const CommitInfo& commit, const BuildFailure& failure,
                       std::string_view remembered_at) {
  // The log ends with culprit's own line repeating the reason: leave it out.
  std::string tail = failure.log_tail;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (size_t last = tail.rfind('\n'); std::string_view(tail)
                                          .substr(last == std::string::npos ? 0 : last + 1)
                                          .starts_with("culprit: ")) {
    tail.resize(last == std::string::npos ? 0 : last);
  }
  // The first line says how to retry, as it is all a bisect's skip line shows.
  std::string remembered =
      remembered_at.empty() ? std::string()
                            : fmt::format(" (remembered from the attempt at {}; {})", remembered_at,
                                          RetryAdvice(failure, "`culprit build --rebuild`"));
  std::string hint =
      failure.timed_out
          ? fmt::format("the whole log is at {}; a build that timed out is {}",
                        failure.log.string(), RetryAdvice(failure, "--rebuild"))
          : fmt::format(
                "the whole log is at {}; culprit will not try this commit again unless you pass "
                "--rebuild",
                failure.log.string());
  return Error(fmt::format("commit {} ({}) does not build{}: {}{}{}", commit.short_id,
                           commit.subject, remembered, failure.reason,
                           tail.empty() ? "" : "\nlast lines of the build log:\n", tail))
      .WithHint(hint);
}

}  // namespace culprit
