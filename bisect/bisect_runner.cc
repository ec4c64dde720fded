#include "bisect/bisect_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/interrupt.h"
#include "base/run_id.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "bisect/bisect_budget.h"
#include "bisect/bisect_session.h"
#include "bisect/claims.h"
#include "bisect/range_split.h"
#include "bisect/slow_tail.h"
#include "bisect/tie_plan.h"
#include "engine/file_lock.h"
#include "probes/comparison.h"
#include "probes/log_interval.h"
#include "probes/sitting.h"
#include "probes/summary.h"
#include "probes/verdict.h"
#include "records/bisect_step_details.h"
#include "records/comparison_details.h"

namespace culprit {
namespace {

// Why `--all-parents` is refused. The search numbers a range's commits in one line and
// verifies a commit against its neighbour in it; over every parent, that neighbour need not
// be the commit's parent (zstd: a commit that changed .travis.yml was "verified" against a
// commit on another branch, 55 files away).
Error AllParentsRefused() {
  return Error::Usage(
             "--all-parents is not supported: a search over every parent lines commits up so "
             "that a commit's neighbour need not be its parent, and could verify the wrong one")
      .WithHint(
          "culprit searches the first-parent chain; a merge it lands on is descended into: the "
          "branch it brought in is bisected next, on its own first-parent chain");
}

}  // namespace

std::filesystem::path BisectDir(const BisectSections& config) {
  return config.base_dir / ".culprit";
}
std::filesystem::path BisectStatePath(const BisectSections& config) {
  return BisectDir(config) / "bisect.json";
}

std::string& BisectRunner::Session::ActiveSearchJson() {
  if (state_.segments.empty() || state_.active_segment == 0) return state_.search_json;
  return state_.segments[state_.active_segment].search_json;
}

bool BisectRunner::Session::ActiveSearchesForSpeedup() const {
  if (state_.segments.empty() || state_.active_segment == 0) return state_.speedup;
  return SearchesForSpeedup(state_.segments[state_.active_segment], state_.speedup);
}

Status BisectRunner::Session::Save() {
  state_.updated = NowIsoUtc();
  if (search_) ActiveSearchJson() = search_->ToJson();
  // The search already counts the pairs of the step in flight; until the step's record is
  // written, the state is the only place that keeps them (BisectPendingStep).
  state_.pending_step = recorder_.Pending();
  // The runs kept for re-use survive a resume with the steps that measured them.
  state_.run_reuse_json = recorder_.ReuseJson();
  Status saved = SaveBisectState(BisectStatePath(config_), state_);
  if (!saved) return saved.error().WithContext("saving the bisect state");
  return {};
}

Status BisectRunner::Session::Prepare(const MeasureFlags& flags) {
  Result<const QueryConfig*> query = SelectQuery(config_, state_.query);
  if (!query) return query.error();
  query_ = *query;
  state_.query = query_->name;
  Result<SittingOptions> options = MakeSittingOptions(config_.measure, *query_, flags);
  if (!options) return options.error();
  options_ = *options;
  max_pairs_given_ = flags.max_pairs.has_value();
  if (host_) start_snapshot_ = host_->Snapshot(/*calibrate=*/true);
  recorder_.Prepare(*query_, options_, start_snapshot_);
  return {};
}

Error BisectRunner::Session::Stop(const Error& error, std::string_view when_saved) {
  state_.status = BisectStatus::kInterrupted;
  SettleSharedChecks();
  const Status flushed = FlushStep();
  const Status saved = Save();
  if (flushed && saved) {
    return Error(error.message() + std::string(when_saved), error.kind()).WithHint(error.hint());
  }
  std::string lost;
  if (!flushed) lost += "; the step in flight was not archived: " + flushed.error().message();
  if (!saved) {
    lost += "; the bisect state could not be saved: " + saved.error().message() +
            " (a resume continues from the last state that was)";
  }
  return Error(error.message() + lost, error.kind()).WithHint(error.hint());
}

Error BisectRunner::Session::Interrupted() {
  // The steps finished before the interruption; the one in flight is archived by Stop.
  return Stop(
      Error::Interrupted(fmt::format("bisect interrupted after {} steps", state_.log.size()))
          .WithHint("`culprit bisect resume` continues where it stopped, without re-measuring"),
      fmt::format("; its state is saved in {}", BisectStatePath(config_).string()));
}

Status BisectRunner::Session::FlushStep() {
  // Nothing to archive before the search exists (the confirmation is a sitting of its own).
  if (recorder_.empty()) return {};
  return recorder_.Flush(state_, *search_, seg_lo_);
}

Result<BisectReport> BisectRunner::Session::Start(const BisectRequest& request) {
  if (!request.first_parent) return AllParentsRefused();
  Result<std::string> good = engine_.history.Resolve(request.good);
  if (!good) return good.error().WithContext("--good");
  Result<std::string> bad = engine_.history.Resolve(request.bad);
  if (!bad) return bad.error().WithContext("--bad");
  Result<bool> ancestor = engine_.history.IsAncestor(*good, *bad);
  if (!ancestor) return ancestor.error();
  if (!*ancestor || *good == *bad) {
    return Error::Usage(fmt::format("--good {} is not an ancestor of --bad {}: nothing to bisect",
                                    request.good, request.bad));
  }
  Result<std::vector<CommitInfo>> range = engine_.history.Range(*good, *bad, request.first_parent);
  if (!range) return range.error();
  // A record that is not there is a typing error, refused before any state is written.
  std::optional<Record> adopted;
  if (!request.confirmed_by.empty()) {
    Result<Record> found = store_.Find(request.confirmed_by);
    if (!found) {
      return Error::Usage(found.error().message())
          .WithContext("--confirmed-by")
          .WithHint(
              "give the id of a compare of --good against --bad (`culprit records list "
              "--kind compare`)");
    }
    adopted = std::move(*found);
  }

  state_ = BisectState{};
  state_.run_id = NewRunId();
  state_.status = BisectStatus::kRunning;
  state_.started = NowIsoUtc();
  state_.good_rev = request.good;
  state_.bad_rev = request.bad;
  state_.query = request.query;
  state_.first_parent = request.first_parent;
  state_.descended_from = request.descended_from;
  state_.max_pairs = request.flags.max_pairs.value_or(0);
  state_.seed = request.flags.seed.value_or(0);
  state_.prove_first = request.prove_first;
  state_.config_digest = config_.digest;
  state_.commits.push_back(*good);
  for (const CommitInfo& commit : *range) state_.commits.push_back(commit.id);
  CULPRIT_TRY(Prepare(request.flags));
  CULPRIT_TRY(Save());
  reporter_.Line(fmt::format("bisecting {} commits between {} ({}) and {} ({}) on {}",
                             state_.commits.size() - 1, request.good, ShortCommit(*good),
                             request.bad, ShortCommit(*bad), query_->name));
  return adopted ? AdoptConfirmation(*adopted) : Confirm();
}

Result<BisectReport> BisectRunner::Session::Continue(BisectState state) {
  if (!state.first_parent) {
    return AllParentsRefused().WithHint(
        "this bisect was started with --all-parents: `culprit bisect reset`, then run it again "
        "without");
  }
  state_ = std::move(state);
  // The flags `run` was given, so that the resumed bisect keeps its budgets and its order.
  MeasureFlags flags;
  if (state_.max_pairs > 0) flags.max_pairs = state_.max_pairs;
  if (state_.seed != 0) flags.seed = state_.seed;
  CULPRIT_TRY(Prepare(flags));
  if (Status restored = recorder_.RestoreReuse(state_.run_reuse_json); !restored) {
    return restored.error().WithContext(BisectStatePath(config_).string());
  }
  if (state_.search_json.empty()) {
    reporter_.Line("resuming: the endpoints were not confirmed yet; confirming again");
    return Confirm();
  }
  int lo = 0, hi = static_cast<int>(state_.commits.size()) - 1;
  if (!state_.segments.empty()) {
    lo = state_.segments[state_.active_segment].lo;
    hi = state_.segments[state_.active_segment].hi;
  }
  Result<BisectSearch> search = BisectSearch::FromJson(ActiveSearchJson());
  if (!search) return search.error().WithContext(BisectStatePath(config_).string());
  if (search->n_commits() != hi - lo) {
    return Error(fmt::format("{}: damaged bisect state: its search covers {} commits but its "
                             "segment holds {}",
                             BisectStatePath(config_).string(), search->n_commits(), hi - lo))
        .WithHint("`culprit bisect reset` discards it");
  }
  search_ = std::move(*search);
  seg_lo_ = lo;
  if (state_.pending_step) {
    // The step a killed (or stopped) process had in flight: continued if the search asks for
    // more of it, archived with what it holds otherwise. Its host state at the start is this
    // process's: the one it was started under is gone with that process.
    recorder_.Resume(*state_.pending_step);
    state_.pending_step.reset();
  }
  // The band the search was started with (a --band given to `bisect run`).
  options_.band = search_->options().band;
  recorder_.Prepare(*query_, options_, start_snapshot_);
  reporter_.Line(fmt::format("resuming the bisect of {} commits on {}: {} steps done, {} pairs",
                             state_.commits.size() - 1, query_->name, state_.log.size(),
                             search_->pairs_used()));
  state_.status = BisectStatus::kRunning;
  if (!state_.segments.empty() &&
      state_.segments[state_.active_segment].outcome != SegmentOutcome::kNone) {
    CULPRIT_TRY(FlushStep());
    return Advance();
  }
  return Search();
}

Result<ComparisonOutcome> BisectRunner::Session::Sitting(int a, int b, BisectStepKind kind) {
  return Sitting(a, b, kind,
                 SittingBudget(options_, config_.bisect, kind, max_pairs_given_, PairsLeft()));
}

Result<ComparisonOutcome> BisectRunner::Session::Sitting(int a, int b, BisectStepKind kind,
                                                         const SittingOptions& options) {
  return recorder_.RunSitting(state_, a, b, kind, options);
}

Result<ComparisonOutcome> BisectRunner::Session::CheckSitting(const BisectSegment& segment,
                                                              const SittingOptions& check,
                                                              const TiePlan& plan) {
  Result<ComparisonOutcome> outcome =
      Sitting(segment.lo, segment.hi, BisectStepKind::kCheck, CheckSittingBudget(check, plan));
  if (!outcome) return outcome.error();
  state_.records.push_back(outcome->record.id);
  if (outcome->sitting.interrupted) return Interrupted();
  if (outcome->archive_error) return *outcome->archive_error;
  return outcome;
}

TiePlan BisectRunner::Session::PlanCheckTie(const std::vector<BisectSegment>& segments, int k,
                                            const SittingOptions& check) const {
  std::optional<PairNoise> noise;
  if (search_) noise = PooledPairNoise(search_->observations());
  // Only the part before the earliest change earns a label with its tie ("first bad
  // commit"): --prove-first asks more of that tie alone, and any other part's is not sought
  // where a rule-out answers its question (PlanTie).
  const bool earns_label = TieEarnsFirst(segments, k);
  const bool prove = (state_.prove_first || config_.bisect.prove_first) && earns_label;
  return PlanTie(noise, check.band, check.confidence, check.min_pairs, TieBudget(check),
                 check.max_pairs, prove, earns_label);
}

SearchOptions BisectRunner::Session::SearchBudget(int n, int endpoint_pairs) const {
  return MakeSearchOptions(options_, config_.bisect, n, endpoint_pairs, PairsLeft());
}

BisectSegment BisectRunner::Session::WholeRange() const {
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = static_cast<int>(state_.commits.size()) - 1;
  whole.check = SegmentCheck::kSame;
  for (const BisectStepLog& l : state_.log) {
    if (l.kind != BisectStepKind::kConfirm) continue;
    whole.ratio = l.ratio;
    whole.low = l.low;
    whole.high = l.high;
    whole.pairs = l.pairs;
    whole.check_record = l.record_id;
    whole.confidence = options_.confidence;
  }
  return whole;
}

Result<BisectReport> BisectRunner::Session::Confirm() {
  // The endpoints in one sitting with the full sequential design: the move
  // must be an EFFECT here before any commit is searched.
  const int n = static_cast<int>(state_.commits.size()) - 1;
  reporter_.Line("confirming the move: good vs bad in one sitting");
  Result<ComparisonOutcome> outcome = Sitting(0, n, BisectStepKind::kConfirm);
  if (!outcome) return outcome.error();
  state_.records.push_back(outcome->record.id);
  std::string summary = FormatComparisonSummary(*outcome);
  reporter_.Line(summary.substr(0, summary.find('\n')));
  if (outcome->sitting.interrupted) return Interrupted();
  CULPRIT_TRY(OutcomeStatus(*outcome));

  BisectStepLog log = SittingLog(static_cast<int>(state_.log.size()) + 1, BisectStepKind::kConfirm,
                                 0, n, state_.commits, *outcome);
  log.baseline = 0;
  if (outcome->record.verdict != Verdict::kEffect) {
    unconfirmed_.good = state_.good_rev;
    unconfirmed_.bad = state_.bad_rev;
    unconfirmed_.verdict = outcome->record.verdict.value_or(Verdict::kInconclusive);
    if (outcome->record.estimate) {
      unconfirmed_.ratio = outcome->record.estimate->ratio;
      unconfirmed_.low = outcome->record.estimate->low;
      unconfirmed_.high = outcome->record.estimate->high;
      unconfirmed_.confidence = outcome->record.estimate->confidence;
    }
    unconfirmed_.pairs = outcome->sitting.pairs_kept;
    if (outcome->sitting.verdict) {
      unconfirmed_.detectable_ratio = outcome->sitting.verdict->detectable_ratio;
      unconfirmed_.advice = outcome->sitting.verdict->explanation;
    }
    log.note = unconfirmed_.verdict == Verdict::kNull ? "not reproducible" : "not confirmed";
    state_.log.push_back(log);
    return Finish(summary);
  }
  return Confirmed(outcome->record, outcome->sitting.pairs_kept, outcome->sitting.log_ratios, log);
}

Result<BisectReport> BisectRunner::Session::AdoptConfirmation(const Record& record) {
  const int n = static_cast<int>(state_.commits.size()) - 1;
  std::string why = ConfirmationMismatch(record, state_.commits.front(), state_.commits.back(),
                                         query_->name, options_.band);
  std::vector<double> d;
  if (why.empty()) {
    d = KeptLogRatios(record.samples);
    if (d.size() < 2) why = "its samples hold fewer than 2 kept pairs";
  }
  if (!why.empty()) {
    reporter_.Line(fmt::format("not using record {} as the confirmation: {}; confirming again",
                               record.id, why));
    return Confirm();
  }
  reporter_.Line(
      fmt::format("the move was confirmed by record {} (ratio {}, {} pairs): its pairs "
                  "are the bisect's confirmation, not measured again",
                  record.id, FormatRatio(*record.estimate), d.size()));
  state_.records.push_back(record.id);
  BisectStepLog log = SittingLog(static_cast<int>(state_.log.size()) + 1, BisectStepKind::kConfirm,
                                 0, n, state_.commits, record, static_cast<int>(d.size()));
  log.note = std::string(kAdoptedNote) + record.id;
  // Counted before the call: the vector is moved into it, and arguments are unsequenced.
  const int pairs = static_cast<int>(d.size());
  return Confirmed(record, pairs, std::move(d), log);
}

Result<BisectReport> BisectRunner::Session::Confirmed(const Record& record, int pairs_kept,
                                                      std::vector<double> d, BisectStepLog log) {
  const int n = static_cast<int>(state_.commits.size()) - 1;
  state_.speedup = record.estimate && record.estimate->ratio < 1;
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = n;
  FillCheck(record, pairs_kept, state_.speedup, whole);
  const bool tail_only = MovesInTheTailOnly(whole, options_.band);
  if (tail_only) {
    whole.outcome = SegmentOutcome::kUnsearched;
    whole.reason = TailOnlyReason(
        whole, ComparisonDetails::FromRecord(record).mean_ratio.value_or(""), options_.band);
  }
  state_.segments = {whole};
  state_.active_segment = 0;
  // Logged first, so that the search's share of [bisect] max_total_pairs counts its pairs.
  log.mass_at_or_before = 1;
  state_.log.push_back(log);
  search_.emplace(n, SearchBudget(n, static_cast<int>(d.size())));
  seg_lo_ = 0;
  if (state_.speedup) {
    for (double& x : d) x = -x;
  }
  search_->AddObservation(n, d);
  for (int i = 1; i < n; ++i) {
    std::optional<bool> known = engine_.builds.KnownBuildable(state_.commits[i]);
    if (known == true) search_->MarkCached(i);
  }
  CULPRIT_TRY(Save());
  if (tail_only) {
    // Measuring commits against the good end would spend the whole search budget on pairs
    // whose shifts all tie (bisect-sim's "x2 in 15% intermittent": 4,294 pairs a bisect).
    reporter_.Line("not searching: " + whole.reason);
    return Advance();
  }
  return Search();
}

Result<BisectReport> BisectRunner::Session::StartSegmentSearch(int k, std::vector<double> d) {
  const BisectSegment& segment = state_.segments[k];
  const int n = segment.hi - segment.lo;
  state_.active_segment = k;
  seg_lo_ = segment.lo;
  search_.emplace(n, SearchBudget(n, static_cast<int>(d.size())));
  // The check's pairs are this search's endpoint observation, as the confirmation's are
  // the whole range's.
  search_->AddObservation(n, AsSearched(std::move(d)));
  for (int i = 1; i < n; ++i) {
    std::optional<bool> known = engine_.builds.KnownBuildable(state_.commits[seg_lo_ + i]);
    if (known == true) search_->MarkCached(i);
  }
  reporter_.Line(fmt::format("searching {}..{} ({} commits): it moves {}",
                             ShortCommit(state_.commits[segment.lo]),
                             ShortCommit(state_.commits[segment.hi]), n,
                             segment.check == SegmentCheck::kOpposite
                                 ? "the other way from the range: searched in its own direction"
                                 : "the way the range does"));
  CULPRIT_TRY(Save());
  return Search();
}

Result<BisectReport> BisectRunner::Session::SegmentDone() {
  if (state_.segments.empty()) {
    // A state saved before ranges were taken apart: its search is the whole range's.
    state_.segments = {WholeRange()};
    state_.active_segment = 0;
  }
  BisectSegment segment = state_.segments[state_.active_segment];
  if (segment.outcome == SegmentOutcome::kNone) {
    const SearchOutcome o = search_->Result();
    const bool named =
        (o.kind == SearchOutcome::Kind::kCulprit || o.kind == SearchOutcome::Kind::kRange) &&
        o.verified;
    if (named) {
      segment.outcome =
          o.kind == SearchOutcome::Kind::kRange ? SegmentOutcome::kRange : SegmentOutcome::kChange;
      segment.first = seg_lo_ + o.first;
      segment.change = seg_lo_ + o.last;
      // As measured: the search sees a speed-up's d with the sign flipped.
      const LogInterval measured =
          LogInterval{o.log_ratio, o.log_ratio_low, o.log_ratio_high}.FlippedIf(
              ActiveSearchesForSpeedup());
      segment.log_ratio = measured.estimate;
      segment.log_low = measured.low;
      segment.log_high = measured.high;
      segment.verify_confidence = o.interval_confidence;
      segment.verification_pairs = o.verification_pairs;
    } else {
      segment.outcome = SegmentOutcome::kInconclusive;
    }
    segment.probability = o.probability;
    // The search numbers commits from the segment's good end.
    segment.reason = seg_lo_ == 0 ? o.reason
                                  : fmt::format("{} (commits numbered from {} = 0)", o.reason,
                                                ShortCommit(state_.commits[seg_lo_]));
    state_.segments[state_.active_segment] = segment;
    for (BisectSegment& part : UnexplainedParts(segment)) state_.segments.push_back(part);
    CULPRIT_TRY(DropSharedChecks(/*keep_awaited=*/true, "the search named something else"));
    CULPRIT_TRY(Save());
  }
  return Advance();
}

Result<BisectRunner::Session::MeasuredCheck> BisectRunner::Session::MeasureCheck(
    int k, BisectSegment& segment) {
  // A check measured beside its verification was planned when it started; only one measured
  // now is planned here.
  SittingOptions check;
  TiePlan plan;
  std::optional<Result<ComparisonOutcome>> shared = TakeSharedCheck(segment, check, plan);
  if (!shared) {
    check = SittingBudget(options_, config_.bisect, BisectStepKind::kCheck, max_pairs_given_,
                          PairsLeft());
    plan = PlanCheckTie(k, check);
  }
  segment.tie_sought = plan.seek;
  segment.tie_pairs_needed = plan.pairs_needed;
  segment.tie_budget = plan.seek ? std::min(plan.budget, check.max_pairs) : 0;
  segment.tie_short = plan.short_of_proof;
  segment.tie_earns_label = plan.earns_label;
  segment.alternative = plan.alternative;
  if (!shared) {
    reporter_.Line(fmt::format(
        "checking what the changes found leave unexplained: {} against {} in one sitting{}",
        ShortCommit(state_.commits[segment.hi]), ShortCommit(state_.commits[segment.lo]),
        CheckPlanText(plan, TieBudget(check))));
  }
  Result<ComparisonOutcome> outcome =
      shared ? std::move(*shared) : CheckSitting(segment, check, plan);
  if (!outcome) return outcome.error();
  return MeasuredCheck{std::move(*outcome), check, plan, shared ? last_shared_runs_ : 0};
}

Result<BisectReport> BisectRunner::Session::Advance() {
  while (true) {
    if (InterruptRequested()) return Interrupted();
    const int k = NextUnchecked(state_.segments);
    if (k < 0) {
      CULPRIT_TRY(DropSharedChecks(/*keep_awaited=*/false, "no part waited for it"));
      return Finish("");
    }
    BisectSegment segment = state_.segments[k];
    if (PairsLeft() < options_.min_pairs) {
      // Not measured, and said: the part is reported unplaced with this reason.
      segment.check = SegmentCheck::kUndecided;
      segment.reason =
          fmt::format("the bisect's pair budget ([bisect] max_total_pairs = {}) is spent",
                      config_.bisect.max_total_pairs);
      state_.segments[k] = segment;
      CULPRIT_TRY(Save());
      continue;
    }
    Result<MeasuredCheck> measured = MeasureCheck(k, segment);
    if (!measured) return measured.error();
    const SittingOptions& check = measured->check;
    const TiePlan& plan = measured->plan;
    ComparisonOutcome* outcome = &measured->outcome;
    // A check whose runs kept failing is undecided, with the reason: the changes already
    // verified stand, and the report says what this part could not tell.
    FillCheck(*outcome, state_.speedup, segment);
    segment.ruled_out = outcome->sitting.ruled_out && segment.check == SegmentCheck::kUndecided;
    segment.check_failures = outcome->sitting.failures;
    segment.small_move_suspected =
        segment.ruled_out && std::fabs(std::log(segment.ratio)) >= BandEdge(options_.band);
    segment.rule_out_pairs_needed =
        segment.check == SegmentCheck::kUndecided && !segment.ruled_out && outcome->sitting.shift
            ? PairsToRuleOut(*outcome->sitting.shift, plan.alternative)
            : 0;
    if (outcome->sitting.failure) {
      segment.check = SegmentCheck::kUndecided;
      segment.reason = "its runs kept failing: " + outcome->sitting.failure->message();
      // The failures, not the tie's plan, are why it is undecided.
      segment.tie_sought = true;
      segment.tie_short = false;
      segment.tie_earns_label = true;
    } else if (segment.check == SegmentCheck::kUndecided) {
      segment.reason = UndecidedTieText(segment, TieBudget(check));
    }
    BisectStepLog log = SittingLog(static_cast<int>(state_.log.size()) + 1, BisectStepKind::kCheck,
                                   segment.lo, segment.hi, state_.commits, *outcome);
    log.note = SegmentCheckName(segment.check);
    log.shared_runs = measured->shared_runs;
    state_.log.push_back(log);
    reporter_.Line(CheckStepLine(log, segment, state_.commits, outcome->record.verdict));
    bool search = ShouldSearch(segment, SearchesMade(state_.segments), config_.bisect.max_changes);
    const bool moves =
        segment.check == SegmentCheck::kSame || segment.check == SegmentCheck::kOpposite;
    // A move in the tail is never searched, whatever budget of searches is left: its reason
    // is that, not the budget.
    const bool tail_only = MovesInTheTailOnly(segment, options_.band);
    if (tail_only) {
      search = false;
      segment.outcome = SegmentOutcome::kUnsearched;
      segment.reason = TailOnlyReason(
          segment, ComparisonDetails::FromRecord(outcome->record).mean_ratio.value_or(""),
          options_.band);
    } else if (moves && !search) {
      segment.outcome = SegmentOutcome::kUnsearched;
      segment.reason = fmt::format("the budget of [bisect] max_changes = {} searches is spent",
                                   config_.bisect.max_changes);
    }
    state_.segments[k] = segment;
    if (search) return StartSegmentSearch(k, outcome->sitting.log_ratios);
    CULPRIT_TRY(Save());
  }
}

Result<BisectReport> BisectRunner::Session::Search() {
  while (true) {
    if (InterruptRequested()) return Interrupted();
    if (RecheckDue()) {
      // The step in flight is archived and the state saved first, as at any step's end: a
      // process killed during the re-check resumes into it with nothing archived twice.
      CULPRIT_TRY(FlushStep());
      CULPRIT_TRY(Save());
      Result<bool> reproduced = Recheck();
      if (!reproduced) return reproduced.error();
      if (!*reproduced) return SegmentDone();
    }
    Action action = search_->Next();
    if (action.kind == Action::Kind::kDone) break;
    BisectStepKind kind =
        action.kind == Action::Kind::kVerify ? BisectStepKind::kVerify : BisectStepKind::kMeasure;
    // The search numbers commits from its segment's good end; the state from the range's.
    const int commit = seg_lo_ + action.commit, baseline = seg_lo_ + action.baseline;
    if (!recorder_.empty() && !recorder_.Holds(kind, commit, baseline)) {
      CULPRIT_TRY(FlushStep());
    }
    if (kind == BisectStepKind::kVerify) StartSharedChecks(commit, baseline);
    Batch batch = recorder_.Measure(state_.commits, kind, commit, baseline, action.pairs,
                                    search_->pairs_used());
    switch (batch.kind) {
      case Batch::Kind::kInterrupted:
        recorder_.MarkInterrupted();
        return Interrupted();
      case Batch::Kind::kBroken:
        return Stop(Error(batch.reason)
                        .WithContext(
                            fmt::format("measuring commit {}", ShortCommit(state_.commits[commit])))
                        .WithHint("fix the cause, then `culprit bisect resume`"));
      case Batch::Kind::kUnbuildable: {
        CULPRIT_TRY(FlushStep());
        // A candidate that cannot be measured is not verified: its checks stop sharing.
        if (kind == BisectStepKind::kVerify) EndSharedVerification();
        const size_t skipped_before = search_->unbuildable().size();
        search_->MarkUnbuildable(action.commit);
        if (search_->unbuildable().size() == skipped_before) {
          // An endpoint (or a commit already skipped): the search would ask
          // for it again forever. Nothing more can be learned here.
          // The step was flushed above; Stop's flush of an empty step is a no-op.
          return Stop(
              Error(fmt::format("commit {} cannot be measured ({}), and the search cannot do "
                                "without it",
                                ShortCommit(state_.commits[commit]), FirstLine(batch.reason)))
                  .WithHint(
                      "fix the cause, then `culprit bisect resume`, or `culprit bisect reset`"));
        }
        recorder_.Skip(state_, kind, commit, baseline, batch.reason);
        CULPRIT_TRY(Save());
        continue;
      }
      case Batch::Kind::kMeasured:
        break;
    }
    FeedSearch(action, batch);
    recorder_.Add(kind, commit, baseline, batch);
    // When this batch ends its step, the step is archived before the state
    // is saved: a process killed after the save has lost no step's record.
    Action next = search_->Next();
    BisectStepKind next_kind =
        next.kind == Action::Kind::kVerify ? BisectStepKind::kVerify : BisectStepKind::kMeasure;
    if (next.kind == Action::Kind::kDone ||
        !recorder_.Holds(next_kind, seg_lo_ + next.commit, seg_lo_ + next.baseline)) {
      if (kind == BisectStepKind::kVerify) NoteSharedVerification();
      CULPRIT_TRY(FlushStep());
      if (kind == BisectStepKind::kVerify) EndSharedVerification();
    }
    CULPRIT_TRY(Save());
  }
  CULPRIT_TRY(FlushStep());
  return SegmentDone();
}

void BisectRunner::Session::FeedSearch(const Action& action, const Batch& batch) {
  const std::vector<double> d = AsSearched(batch.d);
  if (action.kind == Action::Kind::kVerify) {
    // A near-deterministic metric's runs, for the rule the search reads over them; flipped
    // with d for a speed-up. A timed metric's state keeps none.
    std::optional<ArmRuns> runs;
    if (search_->options().near_deterministic) runs = KeptRuns(batch.samples);
    if (runs && ActiveSearchesForSpeedup()) std::swap(runs->baseline, runs->commit);
    search_->AddVerification(action.commit, action.baseline, d, std::move(runs));
  } else {
    search_->AddObservation(action.commit, d);
    search_->MarkCached(action.commit);
  }
}

std::vector<double> BisectRunner::Session::AsSearched(std::vector<double> d) const {
  if (ActiveSearchesForSpeedup()) {
    for (double& x : d) x = -x;
  }
  return d;
}

Result<FileLock> LockBisect(const BisectSections& config) {
  std::error_code ec;
  std::filesystem::create_directories(BisectDir(config), ec);
  Result<std::optional<FileLock>> lock = FileLock::TryAcquire(BisectDir(config) / "bisect.lock");
  if (!lock) return lock.error();
  if (!*lock) {
    return Error("another culprit bisect is running on this engine")
        .WithHint("wait for it, or stop it (Ctrl-C) and `culprit bisect resume` later");
  }
  return std::move(**lock);
}

Result<BisectReport> BisectRunner::Run(const BisectRequest& request) {
  return Descend(RunOne(request), request);
}

Result<BisectReport> BisectRunner::Descend(Result<BisectReport> report, BisectRequest request) {
  for (int depth = 0; report && report->descend && depth < kMaxMergeDescents; ++depth) {
    const MergeDescent merge = *report->descend;
    const std::string outer_text = report->text;
    const std::string outer_record = report->state.result_record;
    reporter_.Line(fmt::format(
        "descending into merge {}: bisecting the branch it brought in, {}..{} (its first-parent "
        "chain; the merge's own result is record {})",
        ShortCommit(merge.merge), ShortCommit(merge.good), ShortCommit(merge.bad), outer_record));
    request.good = merge.good;
    request.bad = merge.bad;
    request.confirmed_by.clear();
    request.descended_from = merge.merge;
    report = RunOne(request);
    if (!report) {
      return report.error().WithContext(
          fmt::format("bisecting the branch merge {} brought in (the bisect that landed on the "
                      "merge is record {})",
                      ShortCommit(merge.merge), outer_record));
    }
    report->text = outer_text + "\n" + report->text;
  }
  return report;
}

Result<BisectReport> BisectRunner::RunOne(const BisectRequest& request) {
  std::error_code ec;
  std::filesystem::create_directories(BisectDir(config_), ec);
  Result<FileLock> lock = LockBisect(config_);
  if (!lock) return lock.error();
  if (std::filesystem::exists(BisectStatePath(config_))) {
    Result<BisectState> existing = LoadBisectState(BisectStatePath(config_));
    if (existing && existing->status != BisectStatus::kDone) {
      return Error::Usage(fmt::format("a bisect of {}..{} on {} is not finished ({} steps done)",
                                      existing->good_rev, existing->bad_rev, existing->query,
                                      existing->log.size()))
          .WithHint("`culprit bisect resume` continues it; `culprit bisect reset` discards it");
    }
  }
  Session session(config_, engine_, host_, reporter_, std::move(*lock));
  return session.Start(request);
}

Result<BisectReport> BisectRunner::Resume() {
  Result<FileLock> lock = LockBisect(config_);
  if (!lock) return lock.error();
  if (!std::filesystem::exists(BisectStatePath(config_))) {
    return Error::Usage("no bisect to resume").WithHint("start one with `culprit bisect run`");
  }
  Result<BisectState> state = LoadBisectState(BisectStatePath(config_));
  if (!state) return state.error();
  if (state->status == BisectStatus::kDone) {
    return Error::Usage(fmt::format("the bisect of {}..{} is finished (record {})", state->good_rev,
                                    state->bad_rev, state->result_record))
        .WithHint("`culprit records show " + state->result_record + "` shows its result");
  }
  // What a descent into a merge the resumed bisect lands on continues with: its query, its
  // budget and its order (the band is the configuration's: a --band is not in the state).
  BisectRequest request;
  request.query = state->query;
  if (state->max_pairs > 0) request.flags.max_pairs = state->max_pairs;
  if (state->seed != 0) request.flags.seed = state->seed;
  request.prove_first = state->prove_first;
  Result<BisectReport> report = [&] {
    Session session(config_, engine_, host_, reporter_, std::move(*lock));
    return session.Continue(std::move(*state));
  }();
  return Descend(std::move(report), request);
}

BisectAttempt BisectRunner::RunOrResume(const BisectRequest& request, std::string_view not_before,
                                        const std::function<void(BisectEntry)>& starting) {
  // Read without the lock, as Resume reads it again under it: only which entry to take.
  auto saved_since = [&]() -> std::optional<BisectState> {
    if (!std::filesystem::exists(BisectStatePath(config_))) return std::nullopt;
    Result<BisectState> saved = LoadBisectState(BisectStatePath(config_));
    if (!saved || saved->started < not_before) return std::nullopt;
    return std::move(*saved);
  };
  BisectAttempt attempt;
  std::optional<BisectState> ours = saved_since();
  if (ours && (ours->good_rev != request.good || ours->bad_rev != request.bad ||
               ours->query != request.query)) {
    ours.reset();
  }
  attempt.entry = !ours                                 ? BisectEntry::kRun
                  : ours->status == BisectStatus::kDone ? BisectEntry::kFinished
                                                        : BisectEntry::kResumed;
  if (starting) starting(attempt.entry);
  if (attempt.entry == BisectEntry::kFinished) {
    attempt.records = ours->records;
    BisectReport report;
    report.text = "bisect record " + ours->result_record + "\n";
    report.state = std::move(*ours);
    attempt.report = std::move(report);
    return attempt;
  }
  attempt.report = attempt.entry == BisectEntry::kResumed ? Resume() : Run(request);
  if (attempt.report) {
    attempt.records = attempt.report->state.records;
  } else if (std::optional<BisectState> stopped = saved_since()) {
    attempt.records = stopped->records;
  }
  return attempt;
}

}  // namespace culprit
