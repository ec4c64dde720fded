#include "records/record_filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "base/strings.h"

namespace culprit {
namespace {

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && Upper(text.substr(0, prefix.size())) == Upper(prefix);
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

template <typename Enum, size_t N, typename Name>
std::vector<std::string> Spellings(const Enum (&values)[N], Name name) {
  std::vector<std::string> words;
  for (Enum v : values) words.emplace_back(name(v));
  return words;
}

}  // namespace

bool RecordFilter::Matches(const Record& record) const {
  if (kind && RecordKindName(record.kind) != *kind) return false;
  if (verdict && (!record.verdict || ParseVerdict(*verdict) != record.verdict)) return false;
  if (query && record.query != *query) return false;
  if (host && (record.host.hostname.empty() ? "unknown" : record.host.hostname) != *host &&
      (record.host.machine_id.empty() || record.host.machine_id != *host)) {
    return false;
  }
  if (commit) {
    bool found = std::any_of(record.arms.begin(), record.arms.end(), [&](const Arm& arm) {
      return !arm.commit.empty() && StartsWithIgnoringCase(arm.commit, *commit);
    });
    for (const auto& [key, value] : record.details) {
      if (EndsWith(key, "commit") && !value.empty() && StartsWithIgnoringCase(value, *commit)) {
        found = true;
      }
    }
    if (!found) return false;
  }
  return true;
}

Status RecordFilter::Validate() const {
  if (kind) {
    std::vector<std::string> kinds = Spellings(kAllRecordKinds, RecordKindName);
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) {
      return Error::Usage(
                 fmt::format("unknown record kind '{}'{}", *kind, DidYouMean(*kind, kinds)))
          .WithHint(fmt::format("kinds are: {}", Join(kinds, ", ")));
    }
  }
  if (verdict) {
    std::vector<std::string> verdicts = Spellings(kAllVerdicts, VerdictName);
    if (std::find(verdicts.begin(), verdicts.end(), Upper(*verdict)) == verdicts.end()) {
      return Error::Usage(fmt::format("unknown verdict '{}'{}", *verdict,
                                      DidYouMean(Upper(*verdict), verdicts)))
          .WithHint(fmt::format("verdicts are: {}", Join(verdicts, ", ")));
    }
  }
  if (commit && commit->empty()) {
    return Error::Usage("the commit filter is empty")
        .WithHint("give a commit id or a prefix of one");
  }
  return {};
}

}  // namespace culprit
