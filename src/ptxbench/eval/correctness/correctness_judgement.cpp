#include "ptxbench/eval/correctness/correctness_judgement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ptxbench/eval/correctness/accuracy_rule.hpp"
#include "ptxbench/eval/correctness/output_comparison.hpp"

namespace ptxbench::eval::worker {
namespace {

using correctness::CandidateTrial;
using correctness::JudgedOutput;
using correctness::JudgeTrial;

std::string changed_inputs(const WorkerJob& job, const std::vector<std::string>& before,
                           const std::vector<std::string>& after) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < job.inputs.size(); ++i) {
    const bool same = i < before.size() && i < after.size() && before[i] == after[i];
    if (!same) names.push_back(job.inputs[i].name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// Which of two failures to report: ptxbench's own failure first (the rest is then unreliable),
// else the earlier one in taxonomy order.
bool more_severe(Verdict a, Verdict b) {
  if (a == Verdict::kInternalError) return b != Verdict::kInternalError;
  if (b == Verdict::kInternalError) return false;
  return a < b;
}

struct TrialVerdict {
  Verdict verdict = Verdict::kPassed;
  std::string message;
};

// Aggregates one output's checks over trials: worst errors, smallest matched ratio.
void merge_check(OutputCheck& into, const OutputCheck& trial, bool first) {
  if (first) {
    into = trial;
    return;
  }
  into.max_abs_error = std::max(into.max_abs_error, trial.max_abs_error);
  into.max_rel_error = std::max(into.max_rel_error, trial.max_rel_error);
  into.matched_ratio = std::min(into.matched_ratio, trial.matched_ratio);
  into.nan_count = std::max(into.nan_count, trial.nan_count);
  into.inf_count = std::max(into.inf_count, trial.inf_count);
  if (into.first_bad_index < 0) into.first_bad_index = trial.first_bad_index;
  into.passed = into.passed && trial.passed;
  into.matches_library = into.matches_library && trial.matches_library;
  if (trial.rule == task::CorrectnessRule::kMatchesLibrary) into.rule = trial.rule;
  if (!trial.accuracy_unavailable.empty()) into.accuracy_unavailable = trial.accuracy_unavailable;
  // The accuracy figures of the worst trial: a failing one, else the one nearest its budget.
  if (trial.accuracy && (!into.accuracy || (into.accuracy->passed && !trial.accuracy->passed) ||
                         (into.accuracy->passed == trial.accuracy->passed &&
                          trial.accuracy->worst_ratio() > into.accuracy->worst_ratio()))) {
    into.accuracy = trial.accuracy;
  }
}

// One output of one trial under the job's rule: the element rule against the library always;
// the figures against the high-precision reference where the judge sent them. Without figures
// the element rule decides, and the check says why.
OutputCheck judge_output(const TensorDesc& desc, const JudgedOutput& record,
                         const task::Tolerance& tolerance) {
  OutputCheck check = make_output_check(desc.name, record.totals, tolerance);
  check.matches_library = check.passed;
  if (record.accuracy) {
    check.accuracy = correctness::judge_accuracy(*record.accuracy, desc.dtype);
  } else {
    check.accuracy_unavailable = record.accuracy_unavailable.empty()
                                     ? "the judge reported no high-precision figures"
                                     : record.accuracy_unavailable;
  }
  const bool accurate_rule = tolerance.rule == task::CorrectnessRule::kAsAccurateAsLibrary;
  check.rule = accurate_rule && check.accuracy ? task::CorrectnessRule::kAsAccurateAsLibrary
                                               : task::CorrectnessRule::kMatchesLibrary;
  check.passed = check.rule == task::CorrectnessRule::kAsAccurateAsLibrary ? check.accuracy->passed
                                                                           : check.matches_library;
  return check;
}

// "; as accurate as the library: yes (...)" where the figures exist, for a failure of the
// original rule.
std::string accuracy_clause(const OutputCheck& check) {
  if (!check.accuracy) return "";
  return fmt::format("; as accurate as the library: {} ({})", check.accuracy->passed ? "yes" : "no",
                     correctness::accuracy_summary(*check.accuracy));
}

// "matches the library: no (3 of 50331648 elements fail |x-y| <= 0.01 or rel <= 0.01, max abs
// error 0.5)", the original rule's verdict as one clause.
std::string library_match_clause(const ComparisonTotals& totals, const task::Tolerance& tolerance,
                                 bool matches) {
  if (matches) return "matches the library: yes";
  return fmt::format(
      "matches the library: no ({} of {} elements fail |x-y| <= {:g} or rel <= {:g}, max abs "
      "error {:.4g})",
      totals.mismatches, totals.elements, tolerance.atol, tolerance.rtol, totals.max_abs_error);
}

TrialVerdict judge_trial(const WorkerJob& job, int trial, const CandidateTrial& candidate_trial,
                         const JudgeTrial& judge_trial_record, std::vector<OutputCheck>& checks) {
  const auto& before = candidate_trial.input_hashes_before;
  const auto& after = candidate_trial.input_hashes_after;
  std::string label = fmt::format("trial {} (seed {})", trial + 1, judge_trial_record.seed);
  if (before != judge_trial_record.input_hashes) {
    return {
        Verdict::kInternalError,
        label +
            ": the judge's inputs differ from the candidate worker's (inputs not reproducible)"};
  }
  TrialVerdict result;
  auto fail = [&](Verdict v, std::string message) {
    if (more_severe(v, result.verdict)) result = {v, label + ": " + std::move(message)};
  };
  const auto& outputs = judge_trial_record.outputs;
  for (std::size_t o = 0; o < job.outputs.size(); ++o) {
    const TensorDesc& desc = job.outputs[o];
    if (o >= outputs.size() || outputs[o].name != desc.name) {
      return {Verdict::kInternalError, label + ": the judge did not report output " + desc.name};
    }
    const JudgedOutput& record = outputs[o];
    const ComparisonTotals& totals = record.totals;
    OutputCheck check = judge_output(desc, record, job.tolerance);
    merge_check(checks[o], check, trial == 0);
    if (never_written(totals)) {
      fail(Verdict::kIncorrectShape,
           fmt::format("output {} was never written (all {} elements still hold the NaN poison)",
                       desc.name, totals.elements));
    } else if (!check.passed && check.rule == task::CorrectnessRule::kAsAccurateAsLibrary) {
      const correctness::AccuracyFigures& f = *check.accuracy;
      std::string where =
          f.first_lost_index >= 0
              ? ", first at " + element_name(desc.name, desc.shape, f.first_lost_index)
              : "";
      fail(Verdict::kIncorrectNumerical,
           fmt::format("output {} is less accurate than the library against the high-precision "
                       "reference: {}{}; {}",
                       desc.name, correctness::accuracy_failure(f), where,
                       library_match_clause(totals, job.tolerance, check.matches_library)));
    } else if (!check.passed) {
      std::string where =
          totals.first_bad_index >= 0
              ? ", first at " + element_name(desc.name, desc.shape, totals.first_bad_index)
              : "";
      std::string non_finite =
          totals.nan_count + totals.inf_count > 0
              ? fmt::format(" ({} NaN, {} Inf)", totals.nan_count, totals.inf_count)
              : "";
      fail(Verdict::kIncorrectNumerical,
           fmt::format(
               "output {}: {} of {} elements ({:.4g}%) fail |x-y| <= {:g} or rel <= {:g}{}{}; "
               "max abs error {:.4g}, max rel error {:.4g}",
               desc.name, totals.mismatches, totals.elements,
               100.0 * static_cast<double>(totals.mismatches) /
                   static_cast<double>(std::max<std::int64_t>(totals.elements, 1)),
               job.tolerance.atol, job.tolerance.rtol, non_finite, where, totals.max_abs_error,
               totals.max_rel_error) +
               accuracy_clause(check));
    }
  }
  if (before != after) {
    fail(Verdict::kInputsModified,
         "run() modified its input(s) " + changed_inputs(job, before, after));
  }
  return result;
}

}  // namespace

std::string element_name(const std::string& tensor, const std::vector<std::int64_t>& shape,
                         std::int64_t flat_index) {
  std::vector<std::int64_t> index(shape.size(), 0);
  std::int64_t rest = flat_index;
  for (std::size_t d = shape.size(); d-- > 0;) {
    std::int64_t extent = std::max<std::int64_t>(shape[d], 1);
    index[d] = rest % extent;
    rest /= extent;
  }
  return fmt::format("{}[{}]", tensor, fmt::join(index, ", "));
}

CorrectnessJudgement judge_correctness(const std::vector<WorkerJob>& jobs,
                                       const std::vector<bool>& headline,
                                       const correctness::CandidateReply& candidate_reply,
                                       const correctness::JudgeReply& judge_reply) {
  CorrectnessJudgement out;
  static const std::vector<CandidateTrial> kNoCandidateTrials;
  static const std::vector<JudgeTrial> kNoJudgeTrials;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const WorkerJob& job = jobs[j];
    WorkloadResult w;
    w.workload = job.workload;
    w.headline = j < headline.size() && headline[j];
    w.outputs.resize(job.outputs.size());
    const auto& candidate_trials =
        j < candidate_reply.jobs.size() ? candidate_reply.jobs[j].trials : kNoCandidateTrials;
    const auto& judge_trials =
        j < judge_reply.jobs.size() ? judge_reply.jobs[j].trials : kNoJudgeTrials;
    TrialVerdict worst;
    int trials = std::min<int>(
        job.trials, static_cast<int>(std::min(candidate_trials.size(), judge_trials.size())));
    if (trials < job.trials) {
      worst = {Verdict::kInternalError,
               fmt::format("{} of {} trials reported by the workers", trials, job.trials)};
    }
    for (int t = 0; t < trials; ++t) {
      TrialVerdict v = judge_trial(job, t, candidate_trials[static_cast<std::size_t>(t)],
                                   judge_trials[static_cast<std::size_t>(t)], w.outputs);
      if (more_severe(v.verdict, worst.verdict)) worst = v;
    }
    w.trials = trials;
    w.status = worst.verdict;
    w.message = worst.message;
    if (more_severe(worst.verdict, out.verdict)) {
      out.verdict = worst.verdict;
      out.message = fmt::format("workload {}: {}", job.workload, worst.message);
    }
    out.workloads.push_back(std::move(w));
  }
  return out;
}

}  // namespace ptxbench::eval::worker
