#include "records/record_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <system_error>

#include "base/atomic_file.h"
#include "records/record.h"
#include "records/record_store.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

bool IsRecordFileName(const fs::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name[0] != '.' && path.extension() == ".json";
}

std::vector<fs::path> RecordFiles(const fs::path& dir, std::error_code& ec) {
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && IsRecordFileName(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The same record: equal bytes, or equal once both are read and written back (the
/// reader is strict, so a file it accepts says nothing it would drop).
bool SameRecord(const std::string& a_text, const Record& a, const std::string& b_text) {
  if (a_text == b_text) return true;
  Result<Record> b = RecordFromJson(b_text, "");
  return b && RecordToJson(a) == RecordToJson(*b);
}

}  // namespace

Result<RecordMergeReport> MergeRecords(const fs::path& source, const fs::path& target) {
  std::error_code ec;
  if (!fs::is_directory(source, ec)) {
    return Error::Usage(fmt::format("{}: no such records directory", source.string()))
        .WithHint("give the directory of another host's archive ([records] dir there)");
  }
  if (fs::exists(target, ec) && fs::equivalent(source, target, ec)) {
    return Error::Usage(fmt::format("{} is the archive being merged into", source.string()))
        .WithHint("merge another host's archive: culprit records merge DIR");
  }
  Status writable = RecordStore(target).CheckWritable();
  if (!writable) return writable.error();

  std::vector<fs::path> files = RecordFiles(source, ec);
  if (ec) {
    return Error(fmt::format("cannot list {}: {}", source.string(), ec.message()));
  }
  RecordMergeReport report;
  for (const fs::path& file : files) {
    Result<std::string> text = ReadFile(file);
    if (!text) {
      report.problems.push_back(text.error());
      continue;
    }
    Result<Record> record = RecordFromJson(*text, file.string());
    if (!record) {
      report.problems.push_back(record.error());
      continue;
    }
    if (record->id + ".json" != file.filename().string()) {
      report.problems.push_back(Error(
          fmt::format("{} holds record {}: a record's file is named after its id, so this one "
                      "was renamed by hand and is not copied",
                      file.string(), record->id)));
      continue;
    }
    const fs::path destination = target / file.filename();
    // Copy unless the target has it; the atomic write refuses a file that appeared meanwhile,
    // which is then compared like one that was there from the start.
    if (!fs::exists(destination, ec)) {
      Status written = WriteFileAtomically(destination, *text, ExistingFile::kRefuse);
      if (written) {
        report.copied.push_back(record->id);
        continue;
      }
      if (!fs::exists(destination, ec)) return written.error();
    }
    Result<std::string> existing = ReadFile(destination);
    if (!existing) return existing.error();
    if (SameRecord(*text, *record, *existing)) {
      ++report.already_present;
    } else {
      report.conflicts.push_back({record->id, file});
    }
  }
  return report;
}

}  // namespace culprit
