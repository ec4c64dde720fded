#pragma once

// A tiny assertion harness: TEST(name) { CHECK(...); CHECK_EQ(a, b); }.
// Failures print file:line and the values, and make the binary exit 1.

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace check {

struct Test {
  const char* name;
  std::function<void()> body;
};

inline std::vector<Test>& Registry() {
  static std::vector<Test> tests;
  return tests;
}

inline int& Failures() {
  static int failures = 0;
  return failures;
}

struct Registrar {
  Registrar(const char* name, std::function<void()> body) {
    Registry().push_back({name, std::move(body)});
  }
};

inline void Fail(const char* file, int line, const std::string& what) {
  ++Failures();
  std::cerr << file << ":" << line << ": check failed: " << what << "\n";
}

}  // namespace check

#define TEST(name)                                          \
  static void name();                                       \
  static ::check::Registrar name##_registrar(#name, &name); \
  static void name()

#define CHECK(condition)                                             \
  do {                                                               \
    if (!(condition)) ::check::Fail(__FILE__, __LINE__, #condition); \
  } while (0)

#define CHECK_EQ(a, b)                                                           \
  do {                                                                           \
    const auto& check_a = (a);                                                   \
    const auto& check_b = (b);                                                   \
    if (!(check_a == check_b)) {                                                 \
      std::ostringstream check_message;                                          \
      check_message << #a " == " #b " (" << check_a << " vs " << check_b << ")"; \
      ::check::Fail(__FILE__, __LINE__, check_message.str());                    \
    }                                                                            \
  } while (0)
