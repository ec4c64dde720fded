#pragma once

// A long-lived child spoken to line by line (the in-process harness protocol).

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "engine/process.h"

namespace culprit {

/// The longest reply line a LineProcess accepts by default: a harness answers
/// "ms V1 ... VN" (about 20 bytes a value), far below this; a longer line is a
/// broken harness, and culprit must not hold an unbounded line in memory.
inline constexpr size_t kMaxReplyLine = 16 << 20;

/// A long-lived child spoken to line by line over its stdin/stdout (the
/// in-process harness protocol). Started like RunProcess (argv, environment,
/// cwd, its own process group); spec.timeout and spec.stdin_data are not used.
/// stderr is drained continuously into a bounded buffer (its last
/// spec.output_limit bytes) so that a chatty harness never blocks on it.
/// Not thread-safe: one caller speaks to it at a time.
class LineProcess {
 public:
  /// Starts the child. Errors: it could not start (the message says why).
  static Result<std::unique_ptr<LineProcess>> Start(const ProcessSpec& spec);

  /// Writes `line` + '\n' and reads one line of reply (without its '\n').
  /// Errors: the line contains a newline (usage); the child has exited (the
  /// message says how, with the tail of its stderr); no full reply within
  /// `timeout` or Ctrl-C: the child's group is killed, since the conversation
  /// is no longer in step, and every later request fails; a reply line longer
  /// than `max_reply` bytes ("harness reply longer than N bytes"): the child is
  /// killed likewise, having held at most about max_reply bytes of it.
  Result<std::string> Request(std::string_view line, std::chrono::milliseconds timeout,
                              size_t max_reply = kMaxReplyLine);

  /// Sends "quit", closes stdin and waits up to `grace` for the child to exit;
  /// then kills its group. Ok only if it exited with status 0 by itself.
  Status Close(std::chrono::milliseconds grace);

  /// The last bytes the child wrote on stderr so far.
  std::string StderrTail() const;

  /// False once the child has exited (by itself or killed), true before. A
  /// query only: it does not reap the child (Request, Close and the
  /// destructor do), so it changes nothing.
  bool running() const;

  /// Kills the group if still running, and reaps the child.
  ~LineProcess();

  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

 private:
  struct State;
  explicit LineProcess(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace culprit
