#pragma once

// Reading culprit.toml text in tests of one section's owner: the text is
// parsed as /proj/culprit.toml and handed to the owner's reader, so messages
// carry the same FILE:LINE:COLUMN as when the whole file is read.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/config_reader.h"
#include "base/result.h"

namespace culprit {

inline constexpr char kTestConfigFile[] = "/proj/culprit.toml";

/// Three lines of [engine] with one artifact, "es"; a section after it starts on line 4.
inline constexpr char kTestEngineSection[] =
    "[engine]\n"
    "build = [[\"make\"]]\n"
    "artifacts = [\"build/es\"]\n";

/// kTestEngineSection followed by `rest`.
std::string WithTestEngine(std::string_view rest);

/// Parses `text` and runs `read` on its root; the parse error or read's status.
Status ReadConfigText(std::string_view text, const std::function<Status(const ConfigTable&)>& read);

/// The message of the usage error `read` must report for `text` ("" and a
/// test failure when it accepts the text or fails otherwise).
std::string ConfigErrorOf(std::string_view text,
                          const std::function<Status(const ConfigTable&)>& read);

/// Sets or clears an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace culprit
