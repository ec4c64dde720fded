#include "tests/support/config_text.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace culprit {

std::string WithTestEngine(std::string_view rest) {
  return std::string(kTestEngineSection) + std::string(rest);
}

Status ReadConfigText(std::string_view text,
                      const std::function<Status(const ConfigTable&)>& read) {
  Result<ConfigDocument> document =
      ConfigDocument::Parse(text, ConfigSource(kTestConfigFile, "/proj"));
  if (!document) return document.error();
  return read(document->root());
}

std::string ConfigErrorOf(std::string_view text,
                          const std::function<Status(const ConfigTable&)>& read) {
  Status status = ReadConfigText(text, read);
  EXPECT_FALSE(status.ok()) << "accepted:\n" << text;
  if (status) return "";
  EXPECT_EQ(status.error().kind(), ErrorKind::kUsage);
  return status.error().message();
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (old_) {
    setenv(name_, old_->c_str(), 1);
  } else {
    unsetenv(name_);
  }
}

}  // namespace culprit
