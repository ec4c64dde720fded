#include "probes/isolation_simulated.h"

#include <fmt/format.h>

#include <cstdlib>

#include "base/interrupt.h"
#include "base/strings.h"
#include "engine/cachegrind.h"

namespace culprit {

std::string SimulatedScript(const ResidencyCondition& condition, const std::string& query,
                            int settle_runs, int measured_runs) {
  std::string script;
  for (const std::string& name : condition.hold) script += "hold " + name + "\n";
  for (const std::string& name : condition.release) script += "release " + name + "\n";
  if (settle_runs > 0) script += fmt::format("run {} {}\n", query, settle_runs);
  if (measured_runs > 0) script += fmt::format("run {} {}\n", query, measured_runs);
  script += "quit\n";
  return script;
}

Status CheckScriptAnswers(const std::string& script, const std::string& stdout_text) {
  const std::vector<std::string_view> answers = SplitLines(stdout_text);
  size_t next = 0;
  for (std::string_view command : SplitLines(script)) {
    if (command == "quit") break;
    if (next >= answers.size()) {
      return Error(fmt::format("'{}': the harness gave no answer (it answered {} of the script)",
                               command, next));
    }
    std::string_view answer = answers[next++];
    if (answer.starts_with("error")) {
      return Error(
          fmt::format("'{}': the engine answered {}", command, EscapeControlChars(answer)));
    }
    const std::vector<std::string_view> words = SplitWords(command);
    if (words.size() == 3 && words[0] == "run") {
      const std::vector<std::string_view> values = SplitWords(answer);
      const std::string expected(words[2]);
      if (values.empty() || values[0] != "ms" || std::to_string(values.size() - 1) != expected) {
        return Error(fmt::format("'{}': the engine answered '{}', expected 'ms' and {} values",
                                 command, EscapeControlChars(answer), expected));
      }
    }
  }
  return {};
}

std::string ValgrindOptsWithFairScheduling(const std::string& inherited) {
  if (inherited.find("--fair-sched=") != std::string::npos) return inherited;
  return inherited.empty() ? std::string(kFairScheduling)
                           : inherited + " " + std::string(kFairScheduling);
}

namespace {

/// One process of a sample: the figure of the whole process under cachegrind, its answers
/// checked.
Result<double> SimulatedFigure(const ProcessSpec& harness, const std::string& script,
                               const SimulatedIsolationOptions& options) {
  ProcessSpec spec = harness;
  spec.stdin_data = script;
  auto given = harness.set_env.find("VALGRIND_OPTS");
  const char* inherited = std::getenv("VALGRIND_OPTS");
  spec.set_env["VALGRIND_OPTS"] =
      ValgrindOptsWithFairScheduling(given != harness.set_env.end() ? given->second
                                     : inherited                    ? inherited
                                                                    : "");
  CachegrindRun run = RunUnderCachegrind(spec, options.kind, options.valgrind);
  if (run.process.outcome == ProcessOutcome::kInterrupted) return Error::Interrupted("interrupted");
  if (!run.value) return Error(run.failure);
  CULPRIT_TRY(CheckScriptAnswers(script, run.process.stdout_text));
  return *run.value;
}

}  // namespace

SimulatedIsolation RunSimulatedIsolation(const ProcessSpec& harness, const IsolationPlan& plan,
                                         const SimulatedIsolationOptions& options,
                                         SittingProgress* progress) {
  SimulatedIsolation s;
  s.kind = options.kind;
  s.valgrind_version = options.valgrind_version;
  s.samples = options.samples;
  s.runs = options.runs;
  s.settle_runs = options.settle_runs;
  s.values.assign(plan.conditions.size(), {});
  for (int sample = 0; sample < options.samples; ++sample) {
    for (size_t c = 0; c < plan.conditions.size(); ++c) {
      const ResidencyCondition& condition = plan.conditions[c];
      if (InterruptRequested()) {
        s.failure = "interrupted";
        return s;
      }
      if (progress) {
        progress->OnPhase(fmt::format("simulating under cachegrind: '{}', sample {} of {}",
                                      condition.name, sample + 1, options.samples));
      }
      const std::string prefix =
          SimulatedScript(condition, plan.query, options.settle_runs, /*measured_runs=*/0);
      const std::string measured =
          SimulatedScript(condition, plan.query, options.settle_runs, options.runs);
      Result<double> before = SimulatedFigure(harness, prefix, options);
      Result<double> after = before ? SimulatedFigure(harness, measured, options) : before;
      if (!after) {
        s.failure =
            after.error().kind() == ErrorKind::kInterrupted
                ? "interrupted"
                : fmt::format("condition '{}': {}", condition.name, after.error().message());
        return s;
      }
      s.values[c].push_back((*after - *before) / options.runs);
    }
  }
  return s;
}

}  // namespace culprit
