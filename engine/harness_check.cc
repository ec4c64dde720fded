#include "engine/harness_check.h"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <optional>

#include "engine/harness_client.h"

namespace culprit {
namespace {

constexpr char kNoStructure[] = "culprit-no-such-structure";
constexpr char kNoQuery[] = "culprit-no-such-query";
constexpr char kNoVerb[] = "culprit-no-such-verb";

bool IsErrorLine(const std::string& reply) {
  return reply == "error" || reply.rfind("error ", 0) == 0;
}

class Checker {
 public:
  explicit Checker(const HarnessCheckOptions& options) : options_(options) {}

  bool Start() {
    Result<std::unique_ptr<HarnessClient>> client =
        HarnessClient::Start(options_.spec, options_.timeout, options_.quit_grace);
    if (!client) {
      Add({"start", "the process starts", client.error().message(), false});
      return false;
    }
    client_ = std::move(*client);
    return true;
  }

  /// Sends `line`; `judge` returns "" when the reply is right, else what is wrong.
  void Expect(const std::string& line, const std::string& expected,
              const std::function<std::string(const std::string&)>& judge) {
    if (!client_ && !Restart()) return;
    Result<std::string> reply = client_->Send(line);
    HarnessCheckStep step{line, expected, "", false};
    if (!reply) {
      step.got = reply.error().message();
    } else {
      step.got = QuoteReply(*reply);
      std::string wrong = judge(*reply);
      step.ok = wrong.empty();
      if (!step.ok) step.got += ": " + wrong;
    }
    if (!client_->running()) {
      client_.reset();
      step.restarted = true;
    }
    Add(step);
  }

  void ExpectError(const std::string& line, const std::string& why) {
    Expect(line, "error MESSAGE (" + why + ")", [](const std::string& reply) {
      return IsErrorLine(reply) ? std::string() : std::string("not an error line");
    });
  }

  void ExpectValues(const std::string& query, int n) {
    const std::string line = fmt::format("run {} {}", query, n);
    Expect(line, fmt::format("ms and {} values", n), [&](const std::string& reply) {
      Result<std::vector<double>> values = ParseRunReply(line, reply, n);
      return values ? std::string() : values.error().message();
    });
  }

  void ExpectOk(const std::string& line, bool allow_bytes) {
    Expect(line, allow_bytes ? "ok or ok bytes=N" : "ok", [&](const std::string& reply) {
      Result<HoldReply> ok = ParseOkReply(line, reply, allow_bytes);
      if (ok && allow_bytes && !ok->bytes) unsized_.push_back(line.substr(5));
      return ok ? std::string() : ok.error().message();
    });
  }

  void Quit() {
    if (!client_ && !Restart()) return;
    Status quit = client_->Quit();
    Add({"quit",
         fmt::format("the process exits 0 within {:g} s", options_.quit_grace.count() / 1000.0),
         quit ? "exited 0" : quit.error().message(), quit.ok()});
    client_.reset();
  }

  HarnessCheckReport Finish() {
    if (!unsized_.empty()) {
      std::string names;
      for (const std::string& n : unsized_) names += (names.empty() ? "" : ", ") + n;
      report_.notes.push_back(fmt::format(
          "hold answered plain 'ok' for {}: fine, but 'ok bytes=N' lets culprit print each "
          "structure's size next to its cost",
          names));
    }
    if (options_.structures.empty()) {
      report_.notes.push_back(
          "no structures to hold were given (no [residency] plan): hold and release of a real "
          "structure were not checked");
    }
    return std::move(report_);
  }

 private:
  bool Restart() {
    if (restarts_ >= 5) return false;
    ++restarts_;
    return Start();
  }

  void Add(HarnessCheckStep step) {
    if (!step.ok) ++report_.failures;
    report_.steps.push_back(std::move(step));
  }

  const HarnessCheckOptions& options_;
  std::unique_ptr<HarnessClient> client_;
  HarnessCheckReport report_;
  std::vector<std::string> unsized_;
  int restarts_ = 0;
};

}  // namespace

HarnessCheckReport CheckHarness(const HarnessCheckOptions& options) {
  Checker check(options);
  if (!check.Start()) return check.Finish();
  const std::string& q = options.query;
  check.ExpectValues(q, 1);
  check.ExpectValues(q, 3);
  for (const std::string& s : options.structures) {
    check.ExpectOk("hold " + s, true);
    check.ExpectValues(q, 1);
    check.ExpectOk("release " + s, false);
    check.ExpectError("release " + s, "it is no longer held");
  }
  check.ExpectError(std::string("hold ") + kNoStructure, "an unknown structure");
  check.ExpectError(std::string("release ") + kNoStructure, "an unknown structure");
  check.ExpectError(fmt::format("run {} 1", kNoQuery), "an unknown query");
  check.ExpectError(fmt::format("run {} 0", q), "N = 0");
  check.ExpectError(fmt::format("run {} -2", q), "a negative N");
  check.ExpectError(fmt::format("run {} lots", q), "N not a number");
  check.ExpectError(fmt::format("run {}", q), "N missing");
  check.ExpectError(kNoVerb, "an unknown verb");
  check.ExpectValues(q, 1);  // still in step after every error
  check.Quit();
  return check.Finish();
}

std::string FormatHarnessCheck(const HarnessCheckReport& report) {
  std::string out;
  for (const HarnessCheckStep& s : report.steps) {
    out += fmt::format("{:<5} {:<44} -> {}\n", s.ok ? "ok" : "FAIL", s.sent, s.got);
    if (!s.ok) out += fmt::format("      expected {}\n", s.expected);
    if (s.restarted) out += "      (the engine was gone after this; started it again)\n";
  }
  for (const std::string& note : report.notes) out += "note: " + note + "\n";
  if (report.failures == 0) {
    out += fmt::format("the harness speaks the protocol: {} checks passed\n", report.steps.size());
  } else {
    out += fmt::format("{} of {} checks failed; see docs/harness.md\n", report.failures,
                       report.steps.size());
  }
  return out;
}

}  // namespace culprit
