#pragma once

// The archive: one JSON file per record, named <id>.json, in one directory.
// Files are written atomically and never overwritten, so a record, once
// listed, is exactly what was measured; readers never see half a file.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "records/record.h"
#include "records/record_filter.h"
#include "records/records_config.h"

namespace culprit {

class RecordStore {
 public:
  /// The archive of `records.dir`; a record written without an invocation of its own
  /// carries `records.invocation`, the command line the CLI passed down.
  explicit RecordStore(const RecordsConfig& records);
  /// The archive of `dir`, for reading it (List, Find, CheckWritable) where no configuration
  /// is at hand (`culprit records`, `records merge`). A record it writes keeps the invocation
  /// it carries, or none: no store reads a process-wide command line; a writer takes its
  /// configuration's RecordsConfig.
  explicit RecordStore(std::filesystem::path dir);
  /// For tests: `random_suffix` supplies the random part of generated ids, to
  /// force collisions. Records carry `invocation` as above.
  RecordStore(std::filesystem::path dir, std::function<uint32_t()> random_suffix,
              std::vector<std::string> invocation = {});

  /// Fills in record.time (now, if empty) and record.invocation (the store's, if empty), and
  /// assigns the id (if empty) as
  /// "<UTC yyyy-mm-ddTHHMMSSZ>-<kind>-<query-or-'none', sanitized>-<4 random hex>",
  /// the time part taken from record.time. Writes <dir>/<id>.json atomically,
  /// never overwriting: a generated id that collides is retried with a new
  /// suffix; a caller-given id that exists is an error. Creates the directory.
  /// Removes temp files of writes whose process died (RemoveStaleTempFiles).
  /// Returns the path. On error the record's id is left as it was.
  Result<std::filesystem::path> Write(Record& record);

  /// Checks, before anything is measured, that Write can succeed: creates the
  /// directory if missing and creates and removes a file in it. The error
  /// names the directory and says how to choose another, so a sitting is never
  /// measured only to be lost at the end.
  Status CheckWritable() const;

  /// Where a record goes when Write failed after the work was done, so it is
  /// never lost: <temp dir>/culprit-unarchived-<id>.json (the id assigned if
  /// empty, as Write does), mode 0600: records carry environment values and
  /// the temp dir is shared. Returns that path.
  Result<std::filesystem::path> WriteFallback(Record& record) const;

  /// Where a finished result ended up.
  struct Archived {
    std::filesystem::path path;  ///< The archived file, the fallback file, or empty.
    /// Set when the archive refused the record; its hint names the fallback file.
    std::optional<Error> error;
  };
  /// Write, and when that fails WriteFallback: the result of finished work is
  /// never thrown away because the archive broke at the end.
  Archived WriteOrFallback(Record& record);

  struct Listing {
    std::vector<Record> records;
    std::vector<Error> problems;  ///< Damaged or unknown-schema files; listing goes on past them.
  };
  /// Every record, sorted by time then id. Files whose names start with '.'
  /// (temp files of writes in progress or of a crash) and files not ending in
  /// .json are not records and are skipped silently. A missing directory is an
  /// empty archive.
  Listing List() const;

  /// The record whose id is `id_or_prefix`, else the only one whose id starts
  /// with it, else the only one whose id contains it (e.g. its random suffix).
  /// Not found, or several candidates (they are listed), is a usage error; a
  /// damaged file is the reader's error.
  Result<Record> Find(std::string_view id_or_prefix) const;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::function<uint32_t()> random_suffix_;
  std::vector<std::string> invocation_;
};

/// Lower-case letters, digits, '.' and '_' kept; every other run of
/// characters becomes one '-'; trimmed; at most 48 characters; "none" if
/// nothing is left. Used for the parts of generated ids.
std::string SanitizeIdPart(std::string_view text);

}  // namespace culprit
