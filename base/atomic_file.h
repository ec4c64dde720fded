#pragma once

#include <filesystem>
#include <string_view>

#include "base/result.h"

namespace culprit {

/// How WriteFileAtomically treats an existing file at `path`.
enum class ExistingFile { kReplace, kRefuse };

/// Writes `content` to `path` so that a reader sees either the old file or the
/// whole new one, never a part: a temp file in the same directory, fsync,
/// rename (or link, with kRefuse, which fails if `path` exists), fsync of the
/// directory. Creates missing parent directories. First removes the temp files
/// of earlier writes of `path` whose process died (RemoveStaleTempFiles).
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           ExistingFile existing = ExistingFile::kReplace);

/// Removes the temp files WriteFileAtomically left in `dir` when its process
/// was killed mid-write (".NAME.tmp-PID-XXXXXXXX" whose PID no longer runs on
/// this machine); with `name`, only those of the file NAME. A directory shared
/// by several machines could lose another machine's write in flight, so call
/// it only on directories of one machine. Errors are ignored: it tidies.
void RemoveStaleTempFiles(const std::filesystem::path& dir, std::string_view name = {});

/// Reads a whole file; the error names the path.
Result<std::string> ReadFile(const std::filesystem::path& path);

}  // namespace culprit
