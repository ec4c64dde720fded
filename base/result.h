#pragma once

// Errors travel up as values, never as exceptions across module boundaries.
// Each layer adds context ("building abc123: step 2: ..."); main prints the
// message once, as "culprit: error: ...", and exits with the error's code.

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "base/exit_codes.h"

namespace culprit {

/// What kind of failure an Error is; it decides the process exit code.
enum class ErrorKind {
  kFailure,      ///< Something went wrong while doing the work (exit 1).
  kUsage,        ///< Bad arguments or configuration (exit 2).
  kInterrupted,  ///< The user pressed Ctrl-C (exit 130).
};

/// A message written for the user, with an optional hint of what to do.
class Error {
 public:
  explicit Error(std::string message, ErrorKind kind = ErrorKind::kFailure)
      : message_(std::move(message)), kind_(kind) {}

  static Error Usage(std::string message) { return Error(std::move(message), ErrorKind::kUsage); }
  static Error Interrupted(std::string message) {
    return Error(std::move(message), ErrorKind::kInterrupted);
  }

  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }
  ErrorKind kind() const { return kind_; }

  /// Returns this error with "context: " prepended to the message.
  Error WithContext(std::string_view context) const {
    Error e = *this;
    e.message_ = std::string(context) + ": " + message_;
    return e;
  }
  /// Returns this error with a hint, printed on its own line after the message.
  Error WithHint(std::string hint) const {
    Error e = *this;
    e.hint_ = std::move(hint);
    return e;
  }

  /// Exit code for main: 1, 2 or 130.
  int ExitCode() const {
    switch (kind_) {
      case ErrorKind::kUsage:
        return kExitUsage;
      case ErrorKind::kInterrupted:
        return kExitInterrupted;
      case ErrorKind::kFailure:
        break;
    }
    return kExitFailure;
  }

 private:
  std::string message_;
  std::string hint_;
  ErrorKind kind_;
};

/// A value or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

/// Success or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_{""};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace culprit

/// Evaluates `expr` (a Result); on error returns it from the enclosing function.
#define CULPRIT_TRY(expr)                                         \
  do {                                                            \
    auto culprit_try_result_ = (expr);                            \
    if (!culprit_try_result_) return culprit_try_result_.error(); \
  } while (0)
