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
/// directory. Creates missing parent directories.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           ExistingFile existing = ExistingFile::kReplace);

/// Reads a whole file; the error names the path.
Result<std::string> ReadFile(const std::filesystem::path& path);

}  // namespace culprit
