#include "records/record_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>
#include <system_error>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "base/timestamp.h"

namespace culprit {
namespace {

constexpr int kMaxIdAttempts = 32;
constexpr std::string_view kExtension = ".json";

uint32_t DefaultRandomSuffix() {
  thread_local std::mt19937 generator{std::random_device{}()};
  return static_cast<uint32_t>(generator());
}

// A record file: "<id>.json", not hidden (temp files start with '.').
bool IsRecordFileName(const std::string& name) {
  return !name.empty() && name[0] != '.' && name.size() > kExtension.size() &&
         name.compare(name.size() - kExtension.size(), kExtension.size(), kExtension) == 0;
}

Status CheckGivenId(std::string_view id) {
  bool safe = !id.empty() && id[0] != '.' && id.find('/') == std::string_view::npos &&
              id.find('\0') == std::string_view::npos;
  if (!safe) {
    return Error(
        fmt::format("'{}' cannot be a record id: ids are file names (no '/', no "
                    "leading '.')",
                    id));
  }
  return {};
}

// Ids of the records in `dir`, from the file names alone.
Result<std::vector<std::string>> RecordIds(const std::filesystem::path& dir) {
  std::vector<std::string> ids;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return ids;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
    std::string name = it->path().filename().string();
    if (!IsRecordFileName(name)) continue;
    ids.push_back(name.substr(0, name.size() - kExtension.size()));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

std::string SanitizeIdPart(std::string_view text) {
  constexpr size_t kMaxLength = 48;
  std::string out;
  bool pending_dash = false;
  for (char raw : text) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
    if (!keep) {
      pending_dash = true;
      continue;
    }
    if (pending_dash && !out.empty()) out += '-';
    pending_dash = false;
    out += c;
  }
  // Leading dots would make the file hidden, and hidden files are not listed.
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  if (out.size() > kMaxLength) out.resize(kMaxLength);
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  return out.empty() ? "none" : out;
}

RecordStore::RecordStore(const RecordsConfig& records)
    : RecordStore(records.dir, DefaultRandomSuffix, records.invocation) {}

RecordStore::RecordStore(std::filesystem::path dir)
    : RecordStore(std::move(dir), DefaultRandomSuffix) {}

RecordStore::RecordStore(std::filesystem::path dir, std::function<uint32_t()> random_suffix,
                         std::vector<std::string> invocation)
    : dir_(std::move(dir)),
      random_suffix_(std::move(random_suffix)),
      invocation_(std::move(invocation)) {}

Result<std::filesystem::path> RecordStore::Write(Record& record) {
  if (record.schema != kRecordSchema) {
    return Error(fmt::format("cannot write a record with schema '{}'; this culprit writes {}",
                             record.schema, kRecordSchema));
  }
  if (record.time.empty()) record.time = NowIsoUtc();
  auto time = ParseIsoUtc(record.time);
  if (!time) return time.error().WithContext("cannot write record: its time");
  // Every record says which command line produced it, wherever it was built.
  if (record.invocation.empty()) record.invocation = invocation_;

  // A record whose writer was killed mid-write left a temp file; it is no
  // record, and nothing else would ever remove it.
  RemoveStaleTempFiles(dir_);

  const std::string original_id = record.id;
  if (!original_id.empty()) {
    CULPRIT_TRY(CheckGivenId(original_id));
    std::filesystem::path path = dir_ / (original_id + std::string(kExtension));
    Status written = WriteFileAtomically(path, RecordToJson(record), ExistingFile::kRefuse);
    if (!written) return written.error().WithContext("cannot write record");
    return path;
  }

  std::string stem =
      fmt::format("{}-{}-{}", FormatCompactUtc(*time), SanitizeIdPart(RecordKindName(record.kind)),
                  SanitizeIdPart(record.query));
  for (int attempt = 0; attempt < kMaxIdAttempts; ++attempt) {
    record.id = fmt::format("{}-{:04x}", stem, random_suffix_() & 0xffffu);
    std::filesystem::path path = dir_ / (record.id + std::string(kExtension));
    Status written = WriteFileAtomically(path, RecordToJson(record), ExistingFile::kRefuse);
    if (written) return path;
    std::error_code ec;
    // Another record took this name (same second, same kind and query): try
    // another suffix. Anything else is a real failure.
    if (std::filesystem::exists(path, ec)) continue;
    record.id = original_id;
    return written.error().WithContext("cannot write record");
  }
  record.id = original_id;
  return Error(fmt::format("cannot write record: {} ids starting with {} were all taken in {}",
                           kMaxIdAttempts, stem, dir_.string()))
      .WithHint("something is writing records in a loop; check the records directory");
}

namespace {

// A process killed (SIGKILL) between writing its write-check probe and removing it leaves
// the probe behind: remove the probes of processes that no longer exist. A live process's
// probe is another culprit checking right now, and is left alone.
void RemoveStaleWriteChecks(const std::filesystem::path& dir) {
  constexpr std::string_view kPrefix = ".culprit-write-check-";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    // Any file may sit here: a name whose digits are no pid (20 of them overflow a
    // long, and std::stol would throw and stop every measuring command) is skipped.
    const std::string_view digits = std::string_view(name).substr(kPrefix.size());
    int pid = 0;
    auto [end, parse_error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (parse_error != std::errc() || end != digits.data() + digits.size() || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

// Writes `content` to `path`, readable by its owner only (0600 whatever the umask),
// whole or not at all, and never over an existing file: a temp file created
// O_EXCL | O_NOFOLLOW beside it (in a shared $TMPDIR nobody can plant a link for
// it), fsync, then link() to `path`, which fails if `path` exists. For the
// fallback record in $TMPDIR: records carry environment values, and $TMPDIR is
// everyone's; WriteFileAtomically creates files 0644.
Status WritePrivateFile(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path temp =
      path.parent_path() / fmt::format(".{}.tmp-{}-{:08x}", path.filename().string(),
                                       static_cast<long>(::getpid()), DefaultRandomSuffix());
  auto failed = [&](std::string_view what, int error) {
    return Error(fmt::format("cannot {} {}: {}", what, path.string(), std::strerror(error)));
  };
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return failed("create a temp file for", errno);
  int error = 0;
  for (size_t done = 0; done < content.size() && error == 0;) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      error = errno;
    }
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::link(temp.c_str(), path.c_str()) != 0) error = errno;
  ::unlink(temp.c_str());
  if (error != 0) return failed("write", error);
  return {};
}

}  // namespace

Status RecordStore::CheckWritable() const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  RemoveStaleWriteChecks(dir_);
  const std::filesystem::path probe =
      dir_ / fmt::format(".culprit-write-check-{}", static_cast<long>(getpid()));
  Status written = ec ? Status(Error(ec.message())) : WriteFileAtomically(probe, "");
  std::filesystem::remove(probe, ec);
  if (!written) {
    return Error(fmt::format("the records directory {} is not writable: {}", dir_.string(),
                             written.error().message()))
        .WithHint(
            "nothing was measured; set [records] dir in culprit.toml to a writable "
            "directory, or free space there");
  }
  return {};
}

Result<std::filesystem::path> RecordStore::WriteFallback(Record& record) const {
  if (record.time.empty()) record.time = NowIsoUtc();
  if (record.invocation.empty()) record.invocation = invocation_;
  if (record.id.empty()) {
    auto time = ParseIsoUtc(record.time);
    record.id = fmt::format("{}-{}-{}-{:04x}", time ? FormatCompactUtc(*time) : "unknown-time",
                            SanitizeIdPart(RecordKindName(record.kind)),
                            SanitizeIdPart(record.query), random_suffix_() & 0xffffu);
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::filesystem::path path = dir / ("culprit-unarchived-" + record.id + std::string(kExtension));
  Status written = WritePrivateFile(path, RecordToJson(record));
  if (!written) return written.error().WithContext("cannot write the record anywhere");
  return path;
}

RecordStore::Archived RecordStore::WriteOrFallback(Record& record) {
  Archived out;
  Result<std::filesystem::path> archived = Write(record);
  if (archived) {
    out.path = *archived;
    return out;
  }
  Error error = archived.error().WithContext("archiving the result");
  Result<std::filesystem::path> fallback = WriteFallback(record);
  if (fallback) {
    out.path = *fallback;
    out.error = error.WithHint(fmt::format(
        "the whole record was written to {} instead; move it into {} when the archive is "
        "writable again",
        fallback->string(), dir_.string()));
  } else {
    out.error = error.WithHint(
        "the record could not be written anywhere; rerun with --json to "
        "print it");
  }
  return out;
}

RecordStore::Listing RecordStore::List() const {
  Listing listing;
  auto ids = RecordIds(dir_);
  if (!ids) {
    listing.problems.push_back(ids.error());
    return listing;
  }
  for (const std::string& id : *ids) {
    std::filesystem::path path = dir_ / (id + std::string(kExtension));
    auto text = ReadFile(path);
    if (!text) {
      listing.problems.push_back(text.error());
      continue;
    }
    auto record = RecordFromJson(*text, path.string());
    if (!record) {
      listing.problems.push_back(record.error());
      continue;
    }
    listing.records.push_back(std::move(record).value());
  }
  std::stable_sort(listing.records.begin(), listing.records.end(),
                   [](const Record& a, const Record& b) {
                     return a.time != b.time ? a.time < b.time : a.id < b.id;
                   });
  return listing;
}

Result<Record> RecordStore::Find(std::string_view id_or_prefix) const {
  if (id_or_prefix.empty()) return Error::Usage("give a record id (or any unique part of one)");
  auto ids = RecordIds(dir_);
  if (!ids) return ids.error();
  // An exact id wins; then the ids that start with the text; then, like
  // `git rev-parse` on a unique fragment, any id that contains it (the random
  // suffix alone, or "probe-series.count" for the only such record).
  std::vector<std::string> candidates;
  for (const std::string& id : *ids) {
    if (id == id_or_prefix) {
      candidates = {id};
      break;
    }
    if (id.starts_with(id_or_prefix)) candidates.push_back(id);
  }
  if (candidates.empty()) {
    for (const std::string& id : *ids) {
      if (id.find(id_or_prefix) != std::string::npos) candidates.push_back(id);
    }
  }
  if (candidates.empty()) {
    return Error::Usage(fmt::format("no record '{}' in {}{}", id_or_prefix, dir_.string(),
                                    DidYouMean(id_or_prefix, *ids)))
        .WithHint("`culprit records list` shows the ids");
  }
  if (candidates.size() > 1) {
    constexpr size_t kShown = 10;
    std::vector<std::string> shown(candidates.begin(),
                                   candidates.begin() + std::min(kShown, candidates.size()));
    std::string more = candidates.size() > kShown
                           ? fmt::format("\n  ... and {} more", candidates.size() - kShown)
                           : "";
    return Error::Usage(fmt::format("'{}' matches {} records:\n  {}{}", id_or_prefix,
                                    candidates.size(), Join(shown, "\n  "), more))
        .WithHint("give more of the id");
  }
  std::filesystem::path path = dir_ / (candidates[0] + std::string(kExtension));
  auto text = ReadFile(path);
  if (!text) return text.error();
  return RecordFromJson(*text, path.string());
}

}  // namespace culprit
