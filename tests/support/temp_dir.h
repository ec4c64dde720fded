#pragma once

#include <filesystem>
#include <string>

namespace culprit {

/// A fresh directory under the system temp dir, removed with its contents on
/// destruction (kept when CULPRIT_KEEP_TEMP is set, for debugging).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes a text file (creating parent directories); aborts the test on failure.
void WriteTextFile(const std::filesystem::path& path, const std::string& content);

/// The whole file, or "" when it cannot be read.
std::string ReadAll(const std::filesystem::path& path);

}  // namespace culprit
