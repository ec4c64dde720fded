#include "investigate/investigation_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "base/strings.h"
#include "records/investigation_details.h"

namespace culprit {

std::string InvestigationRatioText(const InvestigationStepRecord& s) {
  if (!s.ratio) return "no estimate";
  return "ratio " +
         FormatRatioInterval(*s.ratio, s.low.value_or(*s.ratio), s.high.value_or(*s.ratio));
}

std::vector<std::string> InvestigationLinks(const InvestigationState& s) {
  std::vector<std::string> ids;
  auto add = [&](const std::string& id) {
    if (!id.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  if (s.confirm) add(s.confirm->record_id);
  for (const InvestigationStepRecord& p : s.probes) add(p.record_id);
  for (const std::string& id : s.bisect_records) add(id);
  add(s.bisect_record);
  for (const InvestigationExplain& e : s.explains) add(e.record_id);
  for (const InvestigationStepRecord& i : s.isolations) add(i.record_id);
  for (const std::string& id : s.partial_records) add(id);
  return ids;
}

std::string ExplainDetail(const ExplainFacts& f) {
  const double ratio = f.parent_instructions > 0 ? static_cast<double>(f.change_instructions) /
                                                       static_cast<double>(f.parent_instructions)
                                                 : 1;
  std::string out = fmt::format("instructions {}", PercentChange(ratio));
  std::vector<std::string> moved;
  for (const ExplainFunctionFacts& fn : f.functions) {  // Ranked: the largest |delta| first.
    if (moved.size() == 3 || static_cast<uint64_t>(std::llabs(fn.Delta())) <= f.NoiseFloor()) {
      break;
    }
    std::string where = fn.file.empty() || fn.file == "???" ? "" : " in " + fn.file;
    if (!where.empty() && fn.first_line > 0) where += fmt::format(":{}", fn.first_line);
    const char* place = fn.place == FunctionPlace::kTouched  ? ", touched by the change"
                        : fn.place == FunctionPlace::kOnPath ? ", on the query's path, untouched"
                                                             : "";
    moved.push_back(fmt::format("{}{} {}{}", fn.function, where, ExplainDeltaText(fn), place));
  }
  if (moved.empty()) {
    return out +
           "; no function moved by more than the run-to-run floor (0.1% of the parent's "
           "instructions): the change did not move the query's work, function by function";
  }
  out += "; moved most: " + Join(moved, "; ");
  if (f.functions[0].place == FunctionPlace::kOnPath) {
    out +=
        "; the function that moved most is on the query's path in a file the change did not "
        "touch: the \"impossible\" culprit's fingerprint";
  }
  return out;
}

std::string InvestigationExplainLine(const InvestigationExplain& e) {
  switch (e.status) {
    case InvestigationExplain::Status::kNotRun:
      return fmt::format("explain of {}: not run: {}", ShortCommit(e.commit), e.detail);
    case InvestigationExplain::Status::kFailed:
      return fmt::format("explain of {} failed: {}", ShortCommit(e.commit), e.detail);
    case InvestigationExplain::Status::kExplained:
      break;
  }
  return fmt::format("explain of {}: {}", ShortCommit(e.commit), e.detail);
}

namespace {

// "; the host's noise came in bursts during it (...)": what an undecided step's sitting saw of
// the host, or "" when its slow runs did not come in bursts.
std::string BurstClause(const std::optional<SlowRunBursts>& bursts) {
  if (!bursts) return "";
  return fmt::format(
      "; the host's noise came in bursts during it ({} of {} runs far slower, x{:.2f}, in both "
      "arms alike and bunched in time: its record's note), so a quieter host may settle it",
      bursts->SlowRuns(), bursts->Runs(), bursts->factor);
}

}  // namespace

std::string ConfirmSentence(const InvestigateRequest& r, const InvestigationStepRecord& step,
                            const std::optional<SlowRunBursts>& bursts) {
  if (step.verdict == Verdict::kEffect) {
    return fmt::format("confirmed: {} moved {} between {} and {} in one sitting", r.query,
                       PercentChange(*step.ratio), r.good, r.bad);
  }
  if (step.verdict == Verdict::kNull) {
    return fmt::format(
        "NOT REPRODUCIBLE: {} and {} tie on {} here ({}). Either the host drifted since the "
        "number was taken, or the move was never what it was said to be",
        r.good, r.bad, r.query, InvestigationRatioText(step));
  }
  return fmt::format(
      "NOT CONFIRMED: the move between {} and {} on {} is neither an EFFECT nor a tie within "
      "the pair budget ({}, INCONCLUSIVE){}. More pairs (--max-pairs) or a quieter host could "
      "settle it; nothing was bisected on an unconfirmed move",
      r.good, r.bad, r.query, InvestigationRatioText(step), BurstClause(bursts));
}

std::string ProbeSentence(const InvestigationStepRecord& step,
                          const std::optional<SlowRunBursts>& bursts) {
  if (step.verdict == Verdict::kNull) {
    return "ruled out: forcing it changes nothing measurable (" + InvestigationRatioText(step) +
           ")";
  }
  if (step.verdict == Verdict::kEffect) {
    return "supported: this knob moves it (" + InvestigationRatioText(step) + ")";
  }
  return "not settled: neither ruled out nor supported within the pair budget (" +
         InvestigationRatioText(step) + ")" + BurstClause(bursts);
}

std::string RelevanceDetail(CulpritRelevance relevance, const std::string& query,
                            const Relevance& found, const std::vector<std::string>& changed_files) {
  if (relevance == CulpritRelevance::kUnknown) {
    return fmt::format(
        "the code path of {} is {}, so whether the culprit changes code it runs is unknown; "
        "give code_path globs, \"auto\" (coverage) or a command to decide",
        query, found.how_known);
  }
  if (relevance == CulpritRelevance::kOnPath) {
    return fmt::format("it changes code {} runs: {} (code path: {})", query,
                       Join(found.on_path, ", "), found.how_known);
  }
  return fmt::format(
      "it touches nothing on {}'s code path ({}): changed {}. A commit that cannot slow "
      "the query, unless something it keeps alive does",
      query, found.how_known, Join(changed_files, ", "));
}

namespace {

// " No [residency] plan measures Q ...": why a ladder off the path stopped short.
std::string NoPlanSentence(const std::string& query,
                           const std::map<std::string, ResidencyPlan>& residency) {
  std::vector<std::string> plans;
  for (const auto& [name, plan] : residency) {
    plans.push_back(fmt::format("'{}' on {}", name, plan.query));
  }
  return fmt::format(
      " No [residency] plan measures {}, so the ladder stops after the relevance "
      "step without isolating anything{}. Add a plan for the structure the commit "
      "keeps alive (docs/usage.md), or name one with --plan.",
      query, plans.empty() ? "" : " (plans: " + Join(plans, ", ") + ")");
}

}  // namespace

std::string InvestigationConclusion(const InvestigationState& state,
                                    const std::map<std::string, ResidencyPlan>& residency) {
  std::string out = state.confirm ? state.confirm->sentence + "." : "";
  if (state.outcome == LadderOutcome::kNotReproducible ||
      state.outcome == LadderOutcome::kNotConfirmed)
    return out;
  for (const InvestigationStepRecord& p : state.probes) {
    out += fmt::format(" Override {}: {}.", p.name, p.sentence);
  }
  if (!state.bisect_found) {
    return out + " The bisect named no verified culprit (see its record " + state.bisect_record +
           "), so the ladder stopped there.";
  }
  auto sentence = [](std::string text) {
    if (!text.empty()) text[0] = static_cast<char>(std::toupper(text[0]));
    return " " + text + ".";
  };
  if (!state.on_path_culprit.empty()) {
    out += fmt::format(" The bisect names {} \"{}\", verified against its parent.",
                       ShortCommit(state.on_path_culprit), state.on_path_subject);
    out += sentence(state.on_path_detail);
    out += fmt::format(
        " It verified a later change the way the range moved, {} \"{}\", which the ladder went "
        "on with.",
        ShortCommit(state.culprit), state.culprit_subject);
  } else {
    out += fmt::format(" The bisect names {} \"{}\", verified against its parent.",
                       ShortCommit(state.culprit), state.culprit_subject);
  }
  for (const InvestigationExplain& e : state.explains) out += sentence(InvestigationExplainLine(e));
  out += sentence(state.relevance_detail);
  if (state.outcome == LadderOutcome::kOnPath) {
    return out + " The commit changes code the query runs: read those files' diff.";
  }
  if (state.outcome == LadderOutcome::kRelevanceUnknown) return out;
  if (state.outcome == LadderOutcome::kNoPlan) {
    return out + NoPlanSentence(state.request.query, residency);
  }
  for (const InvestigationStepRecord& i : state.isolations) {
    out += fmt::format(" Isolation '{}': {}.", i.name, i.sentence);
  }
  return out;
}

Record MakeInvestigationRecord(const InvestigationState& state, const Record* confirm,
                               const std::string& config_digest,
                               const std::optional<HostState>& end) {
  Record record;
  record.kind = RecordKind::kInvestigation;
  record.query = state.request.query;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = config_digest;
  record.invocation = state.request.invocation;
  record.links = InvestigationLinks(state);
  if (state.confirm) {
    record.verdict = state.confirm->verdict;
    if (state.confirm->ratio) {
      Estimate e;
      e.ratio = *state.confirm->ratio;
      e.low = state.confirm->low.value_or(e.ratio);
      e.high = state.confirm->high.value_or(e.ratio);
      record.estimate = e;
    }
    if (confirm != nullptr) {
      record.band = confirm->band;
      record.unit = confirm->unit;
      record.start = confirm->start;
      record.host = confirm->host;
      if (record.estimate && confirm->estimate) record.estimate = confirm->estimate;
    }
  }
  record.verdict_detail = state.conclusion;
  InvestigationDetails details;
  details.investigation_run = state.run_id;
  details.good = state.request.good;
  details.bad = state.request.bad;
  details.outcome = std::string(LadderOutcomeName(state.outcome));
  if (!state.on_path_culprit.empty()) {
    // The bisect's culprit is on the path; the relevance and isolation are the later change's.
    details.culprit_commit = state.on_path_culprit;
    details.culprit_relevance = std::string(CulpritRelevanceName(CulpritRelevance::kOnPath));
    details.later_change = state.culprit;
  } else if (!state.culprit.empty()) {
    details.culprit_commit = state.culprit;
  }
  if (state.relevance != CulpritRelevance::kNotChecked) {
    details.relevance = std::string(CulpritRelevanceName(state.relevance));
  }
  for (const InvestigationExplain& e : state.explains) {
    details.explains[ShortCommit(e.commit)] =
        e.status == InvestigationExplain::Status::kExplained
            ? e.record_id
            : fmt::format("{}: {}", InvestigationExplainStatusName(e.status), e.detail);
  }
  for (const auto& [step, ms] : state.step_wall_ms) details.wall_ms[step] = ms;
  details.WriteTo(&record.details);
  record.notes.push_back(
      "the move's ratio and interval are the confirmation's (good vs bad, one sitting)");
  if (end) record.end = *end;
  return record;
}

Record MakeInterruptedInvestigationRecord(const InvestigationState& state, InvestigationStep step,
                                          const std::string& config_digest,
                                          const std::optional<HostState>& end) {
  Record record;
  record.kind = RecordKind::kInvestigation;
  record.query = state.request.query;
  record.interrupted = true;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = config_digest;
  record.invocation = state.request.invocation;
  record.links = InvestigationLinks(state);
  InvestigationDetails details;
  details.investigation_run = state.run_id;
  details.interrupted_at = std::string(InvestigationStepName(step));
  details.WriteTo(&record.details);
  record.verdict_detail = fmt::format(
      "interrupted during the {} step; the steps before it are done and archived; "
      "`culprit investigate --resume` continues without measuring them again",
      InvestigationStepName(step));
  if (end) record.end = *end;
  return record;
}

}  // namespace culprit
