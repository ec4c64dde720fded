#pragma once

// `culprit records merge DIR...`: the archives of several hosts (or several
// jobs of one scheduler) made one, file by file. A record is never rewritten:
// its bytes are copied as they were archived, so what was measured stays
// exactly what was measured; a record already in the target is left alone.

#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace culprit {

/// What merging one archive into another did.
struct RecordMergeReport {
  /// Two different records under one id: the target's is kept and the other is
  /// not copied. Ids carry a random suffix, so this means an edited or damaged
  /// copy, never two measurements that happened to collide.
  struct Conflict {
    std::string id;
    std::filesystem::path source;  ///< The file that was not copied.
  };
  std::vector<std::string> copied;  ///< Ids copied into the target, in file name order.
  int already_present = 0;          ///< The same record was there (same content).
  std::vector<Conflict> conflicts;
  /// Files of the source that are not records culprit can read (damaged, an
  /// unknown schema, a file whose name is not its record's id): not copied.
  std::vector<Error> problems;

  /// Everything in the source is now in the target.
  bool complete() const { return conflicts.empty() && problems.empty(); }
};

/// Copies every record file of archive `source` into archive `target`:
/// - a record the target lacks is copied byte for byte (atomically, never
///   overwriting: a file that appeared meanwhile is compared as below);
/// - one the target holds with the same content (byte-equal, or equal once
///   both are read: a file re-indented by hand is the same record) counts as
///   already present, so merging twice changes nothing;
/// - one the target holds with different content is a conflict, reported and
///   not copied;
/// - a file that does not read as a record named after its id is a problem,
///   reported and not copied.
/// Files whose names start with '.' (writes in progress) and files not ending
/// in .json are skipped, as RecordStore::List skips them.
/// Errors: `source` is not a directory, `source` and `target` are the same
/// directory, or the target cannot be written (the report so far is lost with
/// it: nothing in the source is touched either way).
Result<RecordMergeReport> MergeRecords(const std::filesystem::path& source,
                                       const std::filesystem::path& target);

}  // namespace culprit
