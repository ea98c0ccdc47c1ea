#include "ptxbench/report/view/fixit_page.hpp"

#include <fmt/format.h>

#include <map>

#include "ptxbench/fixit/fixit_folder.hpp"
#include "ptxbench/report/svg.hpp"
#include "ptxbench/report/view/view_html.hpp"

namespace ptxbench::report::view {
namespace {
namespace fs = std::filesystem;

// The last row of each mined id, as the stages merge them.
template <class Row>
std::map<std::string, Row> by_mined_id(std::vector<Row> rows) {
  std::map<std::string, Row> out;
  for (auto& row : rows) out.insert_or_assign(row.mined_id, std::move(row));
  return out;
}

std::string evaluation_summary(const eval::Evaluation& e) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& stage : e.stages) {
    rows.push_back({std::string(eval::to_string(stage.stage)),
                    std::string(eval::to_string(stage.status)),
                    fmt::format("{:.2f} s", stage.seconds), stage.message});
  }
  std::string out = fmt::format("<p>{} {}</p>\n", verdict_badge(eval::to_string(e.verdict)),
                                xml_escape(e.message));
  if (!rows.empty()) out += text_table({"stage", "status", "time", "message"}, rows, {0, 0, 1, 0});
  return out;
}

}  // namespace

std::string fixit_page(const FixitCase& row, std::string_view back_href) {
  const auto& m = row.mined;
  std::string body = fmt::format(
      "<p class=\"facts\">task <b>{}</b> · arch <b>{}</b> · context <b>{}</b> · split <b>{}</b> · "
      "from run <b>{}</b>, trajectory <b>{}</b>, turn <b>{}</b> · model <b>{}</b></p>\n",
      xml_escape(m.task), xml_escape(arch::to_string(m.arch)),
      xml_escape(prompt::to_string(m.context)), xml_escape(m.split), xml_escape(m.source.run),
      xml_escape(m.source.trajectory), m.source.turn, xml_escape(m.source.model));

  body += "<section class=\"turn\" id=\"failure\">\n<h2>The failing kernel " +
          verdict_badge(eval::to_string(m.verdict)) + "</h2>\n";
  if (m.expected_verdict) {
    body += fmt::format(
        "<p class=\"note\">Its GPU stages did not run here; the control declares "
        "{}.</p>\n",
        xml_escape(eval::to_string(*m.expected_verdict)));
  }
  body += fmt::format("<pre class=\"text\">{}</pre>\n", xml_escape(m.error_text));
  body += code_block(m.code);
  body += folded_text(fmt::format("Feedback the model saw ({} characters)", m.feedback.size()),
                      m.feedback, false, "feedback");
  body += folded_text("The model's reply", m.reply);
  body += folded_text("The prompt (system and task)", m.system_prompt + "\n\n" + m.task_prompt);
  body += "</section>\n";

  body += "<section class=\"turn\" id=\"repair\">\n<h2>The repair</h2>\n";
  if (row.repair) {
    const auto& r = *row.repair;
    body += fmt::format(
        "<p class=\"facts\">teacher <b>{}</b> · status <b>{}</b> · turn {} of {} "
        "· trajectory {}</p>\n",
        xml_escape(r.teacher), xml_escape(fixit::to_string(r.status)), r.chosen_turn, r.turns,
        xml_escape(r.trajectory));
    if (!r.code.empty()) {
      body += diff_block("The repair against the failing kernel", m.code, r.code, true);
      body += folded_text("The repaired kernel", r.code);
    }
    body += "<h3>Its verdict</h3>\n" + evaluation_summary(r.evaluation);
  } else {
    body += "<p class=\"note\">Not repaired yet (no row in repairs.jsonl).</p>\n";
  }
  body += "</section>\n<section class=\"turn\" id=\"verified\">\n<h2>Verification</h2>\n";
  if (row.verified) {
    const auto& v = *row.verified;
    body += fmt::format("<p><b>{}</b> {}{}</p>\n", xml_escape(fixit::to_string(v.status)),
                        xml_escape(v.reason), v.gpu.empty() ? "" : " · on " + xml_escape(v.gpu));
    body += evaluation_summary(v.evaluation);
  } else {
    body += "<p class=\"note\">Not verified yet (no row in verified.jsonl).</p>\n";
  }
  body += "</section>\n<section class=\"turn\" id=\"explanation\">\n<h2>Explanation</h2>\n";
  if (row.explained) {
    const auto& e = *row.explained;
    body += fmt::format("<p class=\"facts\">explainer <b>{}</b> · length {} · {} attempt(s)</p>\n",
                        xml_escape(e.explainer), xml_escape(e.length_bin), e.attempts);
    body += e.accepted() ? fmt::format("<pre class=\"text\">{}</pre>\n", xml_escape(e.reasoning))
                         : std::string("<p class=\"note\">Every attempt was rejected.</p>\n");
    for (const auto& why : e.rejections) {
      body += fmt::format("<p class=\"note\">rejected: {}</p>\n", xml_escape(why));
    }
  } else {
    body += "<p class=\"note\">Not explained yet (no row in explained.jsonl).</p>\n";
  }
  body += "</section>\n";
  return item_page("Fixit " + m.id, back_href, body);
}

IndexItem fixit_item(const FixitCase& row) {
  const auto& m = row.mined;
  IndexItem item{.title = m.id};
  item[IndexColumn::kKind] = "fixit";
  item[IndexColumn::kRun] = m.source.run;
  item[IndexColumn::kModel] = m.source.model;
  item[IndexColumn::kTask] = m.task;
  item[IndexColumn::kArch] = std::string(arch::to_string(m.arch));
  item[IndexColumn::kContext] = std::string(prompt::to_string(m.context));
  item[IndexColumn::kSplit] = m.split;
  item[IndexColumn::kTurns] = fmt::format("{}", m.source.turn);
  std::string verdicts(eval::to_string(m.verdict));
  if (row.repair && row.repair->evaluation.verdict != m.verdict) {
    verdicts += " " + std::string(eval::to_string(row.repair->evaluation.verdict));
  }
  item[IndexColumn::kVerdicts] = verdicts;
  item[IndexColumn::kOutcome] =
      row.verified ? std::string(fixit::to_string(row.verified->status))
                   : (row.repair ? std::string(fixit::to_string(row.repair->status)) : "mined");
  if (row.repair) {
    if (auto s = row.repair->evaluation.headline_speedup()) {
      item[IndexColumn::kBestSpeedup] = fmt::format("{:.3f}", *s);
    }
  }
  return item;
}

util::Expected<std::vector<FixitCase>> read_fixit_cases(const fs::path& fixit_dir) {
  if (!fs::is_regular_file(fixit_dir / fixit::kMinedFile)) {
    return util::make_error(
        fmt::format("{}: not a Fixit folder (no mined.jsonl)", fixit_dir.string()));
  }
  auto rows = fixit::read_folder_rows(fixit_dir);
  if (!rows) return rows.error();
  auto repairs = by_mined_id(std::move(rows->repairs));
  auto verified = by_mined_id(std::move(rows->verified));
  auto explained = by_mined_id(std::move(rows->explained));
  std::vector<FixitCase> cases;
  for (auto& mined : rows->mined) {
    FixitCase c{.mined = std::move(mined)};
    auto take = [&c](auto& map, auto& slot) {
      if (auto found = map.find(c.mined.id); found != map.end()) slot = std::move(found->second);
    };
    take(repairs, c.repair);
    take(verified, c.verified);
    take(explained, c.explained);
    cases.push_back(std::move(c));
  }
  return cases;
}

util::Expected<std::size_t> add_fixit_folder(ViewerWriter& viewer, const fs::path& fixit_dir) {
  auto cases = read_fixit_cases(fixit_dir);
  if (!cases) return cases.error();
  for (const auto& c : *cases) viewer.add_item(fixit_item(c), fixit_page(c, "../index.html"));
  return cases->size();
}

}  // namespace ptxbench::report::view
