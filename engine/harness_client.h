#pragma once

// The client side of the in-process harness protocol (DESIGN.md, "The
// in-process harness protocol"): one engine process spoken to line by line,
//   hold NAME      -> ok [bytes=N] | error MESSAGE
//   release NAME   -> ok | error MESSAGE
//   run QUERY N    -> ms V1 .. VN | error MESSAGE
//   quit           -> the process exits 0
// Every failure of the engine (it crashed, hung, printed garbage or a partial
// line, answered `error ...` or the wrong count of values, closed its stdout,
// never exited after quit) is an Error that names the command sent. Isolation
// logic speaks to the HarnessSession interface, so tests can script it.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/line_process.h"

namespace culprit {

/// What `hold NAME` answered.
struct HoldReply {
  std::optional<uint64_t> bytes;  ///< From `ok bytes=N`; nullopt when the engine does not tell.
};

/// One engine's harness, as the isolation sitting uses it. Not thread-safe.
class HarnessSession {
 public:
  virtual ~HarnessSession() = default;
  /// Sends `hold NAME`. Errors: any reply but `ok` / `ok bytes=N`, or a broken process.
  virtual Result<HoldReply> Hold(const std::string& name) = 0;
  /// Sends `release NAME`. Errors: any reply but `ok`, or a broken process.
  virtual Status Release(const std::string& name) = 0;
  /// Sends `run QUERY N` (n >= 1); returns exactly n values, each finite and >= 0.
  /// Errors: `error ...`, another count, a value that is not a number, a broken process.
  virtual Result<std::vector<double>> Run(const std::string& query, int n) = 0;
  /// Sends `quit` and waits for the process to exit 0; kills it otherwise.
  virtual Status Quit() = 0;
};

/// Parses the reply to `command` (a hold or a release): `ok`, or `ok bytes=N`
/// when `allow_bytes`. `error MESSAGE` becomes an Error quoting MESSAGE; anything
/// else is a protocol error quoting the reply. Every message names the command.
Result<HoldReply> ParseOkReply(std::string_view command, std::string_view reply, bool allow_bytes);

/// Parses the reply to `command` (`run QUERY n`): `ms` followed by exactly `n`
/// finite numbers >= 0. Errors name the command and say what was wrong.
Result<std::vector<double>> ParseRunReply(std::string_view command, std::string_view reply, int n);

/// Quotes a reply for messages, shortened to its first 120 bytes, non-printable
/// bytes as \xNN: "'ms 1 2'", "'' (an empty line)".
std::string QuoteReply(std::string_view reply);

/// The real harness: a LineProcess with a timeout per request. After a
/// protocol violation (garbage, a wrong count) the conversation is out of step,
/// so the process is killed and every later request fails with the first error;
/// an `error ...` reply keeps it running (the engine is still in step).
class HarnessClient : public HarnessSession {
 public:
  /// Starts the engine's harness. `timeout` bounds each request (the first
  /// request also waits for the engine to load); `quit_grace` how long quit waits.
  static Result<std::unique_ptr<HarnessClient>> Start(
      const ProcessSpec& spec, std::chrono::milliseconds timeout,
      std::chrono::milliseconds quit_grace = std::chrono::seconds(10));

  Result<HoldReply> Hold(const std::string& name) override;
  Status Release(const std::string& name) override;
  Result<std::vector<double>> Run(const std::string& query, int n) override;
  Status Quit() override;

  /// Sends any one line and returns the raw reply (for `culprit harness check`).
  /// Errors: the process is broken, gone, or did not answer in time.
  Result<std::string> Send(std::string_view line);

  /// Client-side time of the last request's round trip, in ms.
  double last_round_trip_ms() const { return last_round_trip_ms_; }
  /// True until the process has exited or was killed.
  bool running() const;
  /// The last bytes the engine wrote on stderr.
  std::string StderrTail() const;
  const std::vector<std::string>& argv() const { return argv_; }

 private:
  HarnessClient(std::unique_ptr<LineProcess> process, std::vector<std::string> argv,
                std::chrono::milliseconds timeout, std::chrono::milliseconds quit_grace);
  /// Send, then the reply checked by `parse`; a protocol error breaks the session.
  template <typename T, typename Parse>
  Result<T> Exchange(const std::string& line, Parse parse);

  std::unique_ptr<LineProcess> process_;
  std::vector<std::string> argv_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds quit_grace_;
  std::optional<Error> broken_;
  bool quit_ = false;
  double last_round_trip_ms_ = 0;
};

}  // namespace culprit
