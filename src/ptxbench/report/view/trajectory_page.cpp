#include "ptxbench/report/view/trajectory_page.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ptxbench/extract/extract.hpp"
#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/view/code_view.hpp"
#include "ptxbench/report/view/view_html.hpp"

namespace ptxbench::report::view {
namespace {

using agent::Trajectory;
using agent::TrajectoryMessage;

std::optional<int> turn_of(const TrajectoryMessage& message) {
  return message.turn;
}

const TrajectoryMessage* find_message(const Trajectory& t, std::string_view role, int turn) {
  for (const auto& message : t.messages) {
    if (message.role == role && turn_of(message) == turn) return &message;
  }
  return nullptr;
}

// A rough size for a reader (about four characters a token in English and code); the provider's
// own count is shown beside it where recorded.
std::string size_text(std::size_t characters) {
  return fmt::format("{} characters, ≈{:.1f}k tokens", characters,
                     static_cast<double>(characters) / 4000.0);
}

std::string prompt_section(const Trajectory& t) {
  std::string inner;
  std::size_t characters = 0;
  for (const auto& message : t.messages) {
    if (message.role == "assistant") break;
    characters += message.content.size();
    inner +=
        folded_text(fmt::format("{} message ({})", message.role, size_text(message.content.size())),
                    message.content);
  }
  std::string recorded;
  if (!t.turns.empty() && t.turns.front().usage.prompt_tokens) {
    recorded = fmt::format("; turn 1's prompt counted {} tokens by the provider",
                           *t.turns.front().usage.prompt_tokens);
  }
  return fmt::format(
      "<details class=\"prompt\" id=\"prompt\"><summary>Prompt: context level <b>{}</b>, {}{}"
      "</summary>\n{}</details>\n",
      xml_escape(prompt::to_string(t.info.context_level)), xml_escape(size_text(characters)),
      xml_escape(recorded), inner);
}

// The reply with the code the extract stage took marked in place (highlighted); when the code
// cannot be found verbatim (line endings were normalised) it follows the reply.
std::string reply_html(const TrajectoryMessage& reply, const std::optional<std::string>& code) {
  const std::string& text = reply.content;
  std::string body;
  std::size_t at = code && !code->empty() ? text.rfind(*code) : std::string::npos;
  if (at != std::string::npos) {
    body = "<pre class=\"reply\">" + xml_escape(std::string_view(text).substr(0, at)) +
           "<mark class=\"extracted\">" + highlight_code(*code) + "</mark>" +
           xml_escape(std::string_view(text).substr(at + code->size())) + "</pre>\n";
  } else {
    body = "<pre class=\"reply\">" + xml_escape(text) + "</pre>\n";
    if (code) body += "<h3>Extracted code</h3>\n" + code_block(*code);
  }
  std::ptrdiff_t lines = 0;
  if (code && !code->empty()) {
    lines = std::count(code->begin(), code->end(), '\n') + (code->back() == '\n' ? 0 : 1);
  }
  std::string out = fmt::format(
      "<details class=\"reply\" open><summary>Reply ({} characters; {})</summary>\n{}</details>\n",
      text.size(),
      code ? fmt::format("extracted code: {} lines, highlighted", lines)
           : std::string("no code block"),
      body);
  if (reply.reasoning_content && !reply.reasoning_content->empty()) {
    out += folded_text(fmt::format("Reasoning ({} characters)", reply.reasoning_content->size()),
                       *reply.reasoning_content);
  }
  return out;
}

std::string seconds_text(double seconds) {
  return fmt::format("{:.2f} s", seconds);
}

std::string verdict_section(const eval::Evaluation& e) {
  std::string out = fmt::format("<h3>Verdict</h3>\n<p>{} {}</p>\n",
                                verdict_badge(eval::to_string(e.verdict)), xml_escape(e.message));
  std::vector<std::vector<std::string>> rows;
  for (const auto& stage : e.stages) {
    rows.push_back({std::string(eval::to_string(stage.stage)),
                    std::string(eval::to_string(stage.status)), seconds_text(stage.seconds),
                    stage.message});
  }
  if (!rows.empty()) out += text_table({"stage", "status", "time", "message"}, rows, {0, 0, 1, 0});
  return out;
}

std::string compile_section(const eval::Evaluation& e) {
  if (e.compile.command.empty() && e.compile.log.empty()) return {};
  const auto* stage = e.find_stage(eval::Stage::kCompile);
  const bool failed = stage && stage->status == eval::StageStatus::kFailed;
  std::string text =
      e.compile.command.empty() ? "" : fmt::format("$ {}\n", fmt::join(e.compile.command, " "));
  text += e.compile.log.empty() ? "(no compiler output)\n" : e.compile.log;
  if (e.compile.log_truncated) text += "\n[log truncated]\n";
  return folded_text(fmt::format("Compile log ({}, {} characters)", seconds_text(e.compile.seconds),
                                 e.compile.log.size()),
                     text, failed);
}

std::string families_section(const eval::Evaluation& e) {
  if (e.families.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : e.families) {
    rows.push_back({f.family, f.requested ? "yes" : "no", fmt::format("{}", f.static_count),
                    f.executed_count ? fmt::format("{}", *f.executed_count) : "not measured",
                    f.flop_share ? fmt::format("{:.1f}%", *f.flop_share * 100) : "–",
                    f.substantial ? "yes" : "no"});
  }
  return "<h3>Instruction families</h3>\n" +
         text_table({"family", "requested", "in SASS", "executed", "FLOP share", "substantial"},
                    rows, {0, 0, 1, 1, 1, 0});
}

std::string dims(const std::array<int, 3>& d) {
  return fmt::format("{}×{}×{}", d[0], d[1], d[2]);
}

std::string kernels_section(const eval::Evaluation& e) {
  if (e.kernels.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : e.kernels) {
    std::vector<std::string> row{k.display_name.empty() ? k.name : k.display_name,
                                 fmt::format("{}", k.registers), fmt::format("{}", k.shared_bytes),
                                 fmt::format("{}/{}", k.spill_store_bytes, k.spill_load_bytes)};
    if (k.launched) {
      const auto& l = *k.launched;
      row.insert(row.end(),
                 {fmt::format("{}", l.registers_per_thread),
                  fmt::format("{}+{}", l.static_shared_bytes, l.dynamic_shared_bytes), dims(l.grid),
                  dims(l.block), l.cluster[0] == 0 ? std::string("–") : dims(l.cluster),
                  fmt::format("{}", l.launches)});
    } else {
      row.insert(row.end(), {"not launched", "–", "–", "–", "–", "–"});
    }
    std::vector<std::string> executed;
    for (const auto& [family, count] : k.executed_families)
      executed.push_back(fmt::format("{} {}", family, count));
    row.push_back(executed.empty() ? "–" : fmt::format("{}", fmt::join(executed, ", ")));
    rows.push_back(std::move(row));
  }
  return "<h3>Kernels (compiled, and as launched)</h3>\n" +
         text_table(
             {"kernel", "registers (ptxas)", "static smem B", "spill st/ld B", "registers (launch)",
              "smem static+dynamic B", "grid", "block", "cluster", "launches", "executed families"},
             rows, {0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0});
}

std::string workloads_section(const eval::Evaluation& e) {
  if (e.workloads.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  for (const auto& w : e.workloads) {
    auto ms = [](const std::optional<eval::TimingStats>& s) {
      return s ? fmt::format("{:.4f}", s->median_ms) : std::string("–");
    };
    rows.push_back(
        {w.workload + (w.headline ? " (headline)" : ""), std::string(eval::to_string(w.status)),
         fmt::format("{}", w.trials), ms(w.candidate), ms(w.baseline), number_text(w.speedup),
         number_text(w.tflops, 1),
         w.speed_of_light ? fmt::format("{:.3f}", w.speed_of_light->fraction) : "–", w.message});
  }
  return "<h3>Workloads</h3>\n" +
         text_table({"workload", "status", "trials", "kernel ms", "baseline ms", "speedup",
                     "TFLOP/s", "speed of light", "message"},
                    rows, {0, 0, 1, 1, 1, 1, 1, 1, 0});
}

std::string usage_line(const agent::TurnRecord& turn) {
  auto tokens = [](const std::optional<std::int64_t>& v) {
    return v ? fmt::format("{}", *v) : std::string("–");
  };
  return fmt::format(
      "<p class=\"facts\">Tokens: prompt <b>{}</b>, completion <b>{}</b>, reasoning <b>{}</b>; "
      "latency <b>{:.1f} s</b>; cost <b>{}</b></p>\n",
      tokens(turn.usage.prompt_tokens), tokens(turn.usage.completion_tokens),
      tokens(turn.usage.reasoning_tokens), turn.latency_s,
      turn.cost_usd ? fmt::format("${:.4f}", *turn.cost_usd) : std::string("not recorded"));
}

std::optional<double> headline_sol(const eval::Evaluation& e) {
  for (const auto& w : e.workloads) {
    if (w.headline && w.speed_of_light) return w.speed_of_light->fraction;
  }
  return std::nullopt;
}

std::string turn_section(const Trajectory& t, const agent::TurnRecord& turn,
                         const std::optional<std::string>& previous_code,
                         std::optional<std::string>& code) {
  const auto& e = turn.evaluation;
  std::string out = fmt::format(
      "<section class=\"turn\" id=\"turn-{0}\">\n<h2>Turn {0} {1}</h2>\n"
      "<p class=\"facts\">speedup <b>{2}</b> · speed of light <b>{3}</b> · sandbox {4}</p>\n",
      turn.turn, verdict_badge(eval::to_string(e.verdict)), number_text(e.headline_speedup()),
      number_text(headline_sol(e)), xml_escape(e.sandbox));
  out += usage_line(turn);
  if (const auto* reply = find_message(t, "assistant", turn.turn)) {
    code = extract::extract_code(reply->content);
    out += reply_html(*reply, code);
  } else {
    code.reset();
    out += "<p class=\"note\">The reply of this turn is not in the conversation.</p>\n";
  }
  if (previous_code && code) {
    out += diff_block("Code against the previous turn", *previous_code, *code);
  }
  out += compile_section(e);
  out += verdict_section(e);
  out += families_section(e);
  out += kernels_section(e);
  out += workloads_section(e);
  const auto* sent = find_message(t, "user", turn.turn);
  const std::string& feedback = sent ? sent->content : turn.feedback;
  out += folded_text(fmt::format("Feedback sent to the model ({} characters{})", feedback.size(),
                                 sent ? "" : ", from the turn record"),
                     feedback, true, "feedback");
  return out + "</section>\n";
}

std::string summary_table(const Trajectory& t) {
  std::string out =
      "<div class=\"table-wrap\"><table>\n<thead><tr><th>turn</th><th>verdict</th>"
      "<th class=\"num\">speedup</th><th class=\"num\">speed of light</th>"
      "<th class=\"num\">prompt tok</th><th class=\"num\">completion tok</th>"
      "<th class=\"num\">latency s</th></tr></thead>\n<tbody>\n";
  for (const auto& turn : t.turns) {
    out += fmt::format(
        "<tr><td><a href=\"#turn-{0}\">{0}</a></td><td>{1}</td><td class=\"num\">{2}</td>"
        "<td class=\"num\">{3}</td><td class=\"num\">{4}</td><td class=\"num\">{5}</td>"
        "<td class=\"num\">{6:.1f}</td></tr>\n",
        turn.turn, verdict_badge(eval::to_string(turn.evaluation.verdict)),
        number_text(turn.evaluation.headline_speedup()), number_text(headline_sol(turn.evaluation)),
        count_text(turn.usage.prompt_tokens), count_text(turn.usage.completion_tokens),
        turn.latency_s);
  }
  return out + "</tbody></table></div>\n";
}

std::string outcome_of(const Trajectory& t) {
  bool correct = false;
  bool not_run = false;
  for (const auto& turn : t.turns) {
    if (turn.evaluation.verified()) return "verified";
    correct = correct || turn.evaluation.correct();
    not_run = not_run || turn.evaluation.verdict == eval::Verdict::kNotRun;
  }
  if (correct) return "correct";
  return not_run ? "not run" : "failed";
}

}  // namespace

std::string trajectory_page(const Trajectory& t, std::string_view run_label,
                            std::string_view back_href) {
  const auto& info = t.info;
  std::string body = fmt::format(
      "<p class=\"facts\">run <b>{}</b> · model <b>{}</b> ({}) · task <b>{}</b> · arch <b>{}</b> · "
      "context <b>{}</b> · split <b>{}</b> · sample <b>{}</b></p>\n"
      "<p class=\"facts\">{} of at most {} turns · status <b>{}</b> · exit <b>{}</b>{} · "
      "ptxbench {} · {} – {}</p>\n",
      xml_escape(run_label), xml_escape(info.model), xml_escape(info.provider),
      xml_escape(info.task), xml_escape(arch::to_string(info.arch)),
      xml_escape(prompt::to_string(info.context_level)), xml_escape(info.split), info.sample,
      t.turns.size(), info.max_turns, xml_escape(agent::to_string(info.status)),
      xml_escape(info.exit_status.empty() ? "–" : info.exit_status),
      info.error.empty() ? "" : " · error: " + xml_escape(info.error),
      xml_escape(info.ptxbench_version), xml_escape(info.created_at), xml_escape(info.updated_at));
  body += summary_table(t);
  body += prompt_section(t);
  std::optional<std::string> previous;
  for (const auto& turn : t.turns) {
    std::optional<std::string> code;
    body += turn_section(t, turn, previous, code);
    if (code) previous = std::move(code);
  }
  return item_page(info.id, back_href, body);
}

IndexItem trajectory_item(const Trajectory& t, std::string_view run_label) {
  IndexItem item{.title = t.info.id};
  item[IndexColumn::kKind] = "trajectory";
  item[IndexColumn::kRun] = std::string(run_label);
  item[IndexColumn::kModel] = t.info.model;
  item[IndexColumn::kTask] = t.info.task;
  item[IndexColumn::kArch] = std::string(arch::to_string(t.info.arch));
  item[IndexColumn::kContext] = std::string(prompt::to_string(t.info.context_level));
  item[IndexColumn::kSplit] = t.info.split;
  item[IndexColumn::kSample] = fmt::format("{}", t.info.sample);
  item[IndexColumn::kTurns] = fmt::format("{}", t.turns.size());
  std::vector<std::string> verdicts;
  std::optional<double> best;
  for (const auto& turn : t.turns) {
    const std::string v(eval::to_string(turn.evaluation.verdict));
    if (std::find(verdicts.begin(), verdicts.end(), v) == verdicts.end()) verdicts.push_back(v);
    if (turn.evaluation.correct()) {
      if (auto s = turn.evaluation.headline_speedup(); s && (!best || *s > *best)) best = s;
    }
  }
  item[IndexColumn::kVerdicts] = fmt::format("{}", fmt::join(verdicts, " "));
  item[IndexColumn::kOutcome] = outcome_of(t);
  item[IndexColumn::kBestSpeedup] = best ? fmt::format("{:.3f}", *best) : "";
  return item;
}

}  // namespace ptxbench::report::view
