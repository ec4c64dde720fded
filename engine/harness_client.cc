#include "engine/harness_client.h"

#include <fmt/format.h>

#include <cctype>
#include <utility>

#include "base/numbers.h"
#include "base/strings.h"

namespace culprit {
namespace {

using Clock = std::chrono::steady_clock;

// "error MESSAGE" (or a bare "error") as an Error naming the command.
std::optional<Error> EngineError(std::string_view command, std::string_view reply) {
  if (reply != "error" && reply.substr(0, 6) != "error ") return std::nullopt;
  std::string_view message = reply.size() > 6 ? reply.substr(6) : std::string_view();
  // The engine's text goes to the terminal: its control bytes (escape
  // sequences among them) are shown, not obeyed.
  return Error(fmt::format("'{}': the engine answered error: {}", command,
                           message.empty() ? "(no message)" : EscapeControlChars(message)));
}

Status CheckName(std::string_view what, std::string_view name) {
  if (name.empty()) return Error::Usage(fmt::format("a harness {} name cannot be empty", what));
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      return Error::Usage(
          fmt::format("a harness {} name cannot contain white space: '{}'", what, name));
    }
  }
  return {};
}

}  // namespace

std::string QuoteReply(std::string_view reply) {
  if (reply.empty()) return "'' (an empty line)";
  std::string out = "'";
  const size_t limit = 120;
  for (size_t i = 0; i < reply.size() && i < limit; ++i) {
    unsigned char c = static_cast<unsigned char>(reply[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += "'";
  if (reply.size() > limit) out += fmt::format(" (... {} bytes in all)", reply.size());
  return out;
}

Result<HoldReply> ParseOkReply(std::string_view command, std::string_view reply, bool allow_bytes) {
  if (std::optional<Error> error = EngineError(command, reply)) return *error;
  std::vector<std::string_view> words = SplitWords(reply);
  HoldReply out;
  if (words.size() == 1 && words[0] == "ok") return out;
  if (allow_bytes && words.size() == 2 && words[0] == "ok" && words[1].substr(0, 6) == "bytes=") {
    if (std::optional<uint64_t> bytes = ParseCount(words[1].substr(6))) {
      out.bytes = *bytes;
      return out;
    }
  }
  return Error(fmt::format(
      "'{}': the engine answered {}, expected {}", command, QuoteReply(reply),
      allow_bytes ? "'ok', 'ok bytes=N' or 'error MESSAGE'" : "'ok' or 'error MESSAGE'"));
}

Result<std::vector<double>> ParseRunReply(std::string_view command, std::string_view reply, int n) {
  if (std::optional<Error> error = EngineError(command, reply)) return *error;
  std::vector<std::string_view> words = SplitWords(reply);
  if (words.empty() || words[0] != "ms") {
    return Error(fmt::format("'{}': the engine answered {}, expected 'ms' and {} values", command,
                             QuoteReply(reply), n));
  }
  std::vector<double> values;
  for (size_t i = 1; i < words.size(); ++i) {
    std::optional<double> value = ParseFiniteNumber(words[i]);
    if (!value || *value < 0) {
      return Error(
          fmt::format("'{}': value {} of the answer, '{}', is not a time in ms (answer {})",
                      command, i, EscapeControlChars(words[i]), QuoteReply(reply)));
    }
    values.push_back(*value);
  }
  if (static_cast<int>(values.size()) != n) {
    return Error(fmt::format("'{}': the engine answered {} values, expected {} (answer {})",
                             command, values.size(), n, QuoteReply(reply)));
  }
  return values;
}

HarnessClient::HarnessClient(std::unique_ptr<LineProcess> process, std::vector<std::string> argv,
                             std::chrono::milliseconds timeout,
                             std::chrono::milliseconds quit_grace)
    : process_(std::move(process)),
      argv_(std::move(argv)),
      timeout_(timeout),
      quit_grace_(quit_grace) {}

Result<std::unique_ptr<HarnessClient>> HarnessClient::Start(const ProcessSpec& spec,
                                                            std::chrono::milliseconds timeout,
                                                            std::chrono::milliseconds quit_grace) {
  Result<std::unique_ptr<LineProcess>> process = LineProcess::Start(spec);
  if (!process) return process.error();
  return std::unique_ptr<HarnessClient>(
      new HarnessClient(std::move(*process), spec.argv, timeout, quit_grace));
}

Result<std::string> HarnessClient::Send(std::string_view line) {
  if (broken_) return *broken_;
  if (quit_) return Error(fmt::format("'{}': the harness was already told to quit", line));
  const Clock::time_point start = Clock::now();
  Result<std::string> reply = process_->Request(line, timeout_);
  last_round_trip_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!reply) {
    Error error = reply.error();
    // LineProcess names the command when it timed out; say it in every case.
    if (error.message().find(fmt::format("'{}'", line)) == std::string::npos) {
      error = error.WithContext(fmt::format("'{}'", line));
    }
    if (error.kind() != ErrorKind::kUsage) broken_ = error;
    return error;
  }
  return reply;
}

template <typename T, typename Parse>
Result<T> HarnessClient::Exchange(const std::string& line, Parse parse) {
  Result<std::string> reply = Send(line);
  if (!reply) return reply.error();
  Result<T> parsed = parse(*reply);
  if (!parsed && !EngineError(line, *reply)) {
    // Not an answer of the protocol: whatever comes next may belong to this
    // request, so nothing later can be trusted. Stop the engine.
    Error error = parsed.error().WithHint(
        "the engine must answer each command with one line on stdout and print everything else "
        "on stderr (see docs/harness.md)");
    broken_ =
        Error(error.message() + "; the harness was stopped, since its answers are out of step");
    process_.reset();
    return error;
  }
  return parsed;
}

Result<HoldReply> HarnessClient::Hold(const std::string& name) {
  CULPRIT_TRY(CheckName("structure", name));
  const std::string line = "hold " + name;
  return Exchange<HoldReply>(
      line, [&](const std::string& reply) { return ParseOkReply(line, reply, true); });
}

Status HarnessClient::Release(const std::string& name) {
  CULPRIT_TRY(CheckName("structure", name));
  const std::string line = "release " + name;
  Result<HoldReply> done = Exchange<HoldReply>(
      line, [&](const std::string& reply) { return ParseOkReply(line, reply, false); });
  if (!done) return done.error();
  return {};
}

Result<std::vector<double>> HarnessClient::Run(const std::string& query, int n) {
  CULPRIT_TRY(CheckName("query", query));
  if (n < 1) return Error::Usage(fmt::format("run {} {}: N must be at least 1", query, n));
  const std::string line = fmt::format("run {} {}", query, n);
  return Exchange<std::vector<double>>(
      line, [&](const std::string& reply) { return ParseRunReply(line, reply, n); });
}

Status HarnessClient::Quit() {
  if (quit_) return {};
  quit_ = true;
  if (!process_) return broken_ ? Status(*broken_) : Status();
  Status closed = process_->Close(quit_grace_);
  if (!closed) return closed.error().WithContext("'quit'");
  return {};
}

bool HarnessClient::running() const { return process_ && process_->running(); }

std::string HarnessClient::StderrTail() const { return process_ ? process_->StderrTail() : ""; }

}  // namespace culprit
