#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "records/record.h"

namespace culprit {

/// What `culprit records list` selects. Unset fields match everything.
struct RecordFilter {
  std::optional<std::string> kind;     ///< Exact kind ("probe", "bisect-step" ...).
  std::optional<std::string> verdict;  ///< Exact verdict, case-insensitive ("null" = "NULL").
  std::optional<std::string> query;    ///< Exact query name.
  /// Prefix of a commit id (case-insensitive) matched against every arm's
  /// commit and every `details` entry whose key ends in "commit" (a bisect's
  /// culprit_commit), so that "which records involve abc123" finds them all.
  std::optional<std::string> commit;
  /// Exact host name of the record's host (its `host.hostname`) or its machine identity
  /// (`host.machine_id`, "m-..."); "unknown" selects the records that do not name their host
  /// (written by hand, or by a host that did not say).
  std::optional<std::string> host;

  bool Matches(const Record& record) const;

  /// Usage error for a kind or verdict culprit never writes (with a
  /// did-you-mean), or an empty commit prefix.
  Status Validate() const;
};

}  // namespace culprit
