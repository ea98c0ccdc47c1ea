#include <fmt/format.h>

#include "ptxbench/eval/evaluation_json.hpp"
#include "ptxbench/fixit/rows.hpp"

namespace ptxbench::fixit {
namespace {

using Json = nlohmann::json;

// Field access that turns a missing or mistyped field into an error naming it.
class Reader {
 public:
  explicit Reader(const Json& json) : json_(json) {}
  template <class T>
  T get(const char* field) {
    if (!json_.is_object() || !json_.contains(field)) {
      fail(field, "missing");
      return T{};
    }
    try {
      return json_.at(field).get<T>();
    } catch (const Json::exception&) {
      fail(field, "wrong type");
      return T{};
    }
  }
  template <class T>
  T get_or(const char* field, T fallback) {
    if (!json_.is_object() || !json_.contains(field) || json_.at(field).is_null()) return fallback;
    return get<T>(field);
  }
  arch::Arch arch(const char* field) {
    auto parsed = arch::parse(get<std::string>(field));
    if (!parsed) fail(field, "unknown arch");
    return parsed.value_or(arch::Arch::kHopper);
  }
  eval::Verdict verdict(const char* field) {
    auto parsed = eval::parse_verdict(get<std::string>(field));
    if (!parsed) fail(field, "unknown verdict");
    return parsed.value_or(eval::Verdict::kInternalError);
  }
  eval::Evaluation evaluation(const char* field) {
    if (!json_.contains(field)) {
      fail(field, "missing");
      return {};
    }
    auto parsed = eval::evaluation_from_json(json_.at(field));
    if (!parsed) {
      fail(field, parsed.error().message);
      return {};
    }
    return *parsed;
  }
  void fail(const char* field, std::string_view problem) {
    if (error_.empty()) error_ = fmt::format("{}: {}", field, problem);
  }
  template <class T>
  util::Expected<T> result(T value) const {
    if (!error_.empty()) return util::make_error(error_);
    return value;
  }

 private:
  const Json& json_;
  std::string error_;
};

}  // namespace

eval::Verdict verdict_kind(const MinedRow& row) {
  if (row.verdict == eval::Verdict::kNotRun && row.expected_verdict) return *row.expected_verdict;
  return row.verdict;
}

std::string_view to_string(RepairStatus status) {
  switch (status) {
    case RepairStatus::kRepaired:
      return "repaired";
    case RepairStatus::kUnjudged:
      return "unjudged";
    case RepairStatus::kNotRepaired:
      return "not_repaired";
  }
  return "?";
}

std::optional<RepairStatus> parse_repair_status(std::string_view name) {
  for (auto status : {RepairStatus::kRepaired, RepairStatus::kUnjudged, RepairStatus::kNotRepaired})
    if (to_string(status) == name) return status;
  return std::nullopt;
}

std::string_view to_string(VerifyStatus status) {
  switch (status) {
    case VerifyStatus::kVerified:
      return "verified";
    case VerifyStatus::kUnverified:
      return "unverified";
    case VerifyStatus::kRejected:
      return "rejected";
  }
  return "?";
}

std::optional<VerifyStatus> parse_verify_status(std::string_view name) {
  for (auto status : {VerifyStatus::kVerified, VerifyStatus::kUnverified, VerifyStatus::kRejected})
    if (to_string(status) == name) return status;
  return std::nullopt;
}

Json to_json(const MinedRow& row) {
  Json json{{"id", row.id},
            {"source",
             {{"run", row.source.run},
              {"trajectory", row.source.trajectory},
              {"turn", row.source.turn},
              {"model", row.source.model},
              {"reply_file", row.source.reply_file}}},
            {"task", row.task},
            {"arch", arch::to_string(row.arch)},
            {"context", prompt::to_string(row.context)},
            {"split", row.split},
            {"verdict", eval::to_string(row.verdict)},
            {"expected_verdict", nullptr},
            {"system_prompt", row.system_prompt},
            {"task_prompt", row.task_prompt},
            {"reply", row.reply},
            {"code", row.code},
            {"feedback", row.feedback},
            {"error_text", row.error_text},
            {"source_hash", row.source_hash},
            {"normalized_hash", row.normalized_hash}};
  if (row.expected_verdict) json["expected_verdict"] = eval::to_string(*row.expected_verdict);
  return json;
}

util::Expected<MinedRow> mined_row_from_json(const Json& json) {
  Reader r(json);
  MinedRow row{.id = r.get<std::string>("id")};
  Json source = r.get<Json>("source");
  Reader s(source);
  row.source = {.run = s.get<std::string>("run"),
                .trajectory = s.get<std::string>("trajectory"),
                .turn = s.get<int>("turn"),
                .model = s.get<std::string>("model"),
                .reply_file = s.get_or<std::string>("reply_file", "")};
  if (auto bad = s.result(0); !bad) r.fail("source", bad.error().message);
  row.task = r.get<std::string>("task");
  row.arch = r.arch("arch");
  auto level = prompt::parse_context_level(r.get<std::string>("context"));
  if (!level) r.fail("context", "unknown context level");
  row.context = level.value_or(prompt::ContextLevel::kNone);
  row.split = r.get_or<std::string>("split", "train");
  row.verdict = r.verdict("verdict");
  if (auto expected = r.get_or<std::string>("expected_verdict", ""); !expected.empty()) {
    row.expected_verdict = eval::parse_verdict(expected);
    if (!row.expected_verdict) r.fail("expected_verdict", "unknown verdict");
  }
  row.system_prompt = r.get<std::string>("system_prompt");
  row.task_prompt = r.get<std::string>("task_prompt");
  row.reply = r.get<std::string>("reply");
  row.code = r.get<std::string>("code");
  row.feedback = r.get<std::string>("feedback");
  row.error_text = r.get_or<std::string>("error_text", "");
  row.source_hash = r.get_or<std::string>("source_hash", "");
  row.normalized_hash = r.get<std::string>("normalized_hash");
  return r.result(std::move(row));
}

Json to_json(const RepairRow& row) {
  return {{"mined_id", row.mined_id},
          {"teacher", row.teacher},
          {"trajectory", row.trajectory},
          {"status", to_string(row.status)},
          {"turns", row.turns},
          {"chosen_turn", row.chosen_turn},
          {"reply", row.reply},
          {"code", row.code},
          {"evaluation", eval::to_json(row.evaluation)},
          {"reason", row.reason}};
}

util::Expected<RepairRow> repair_row_from_json(const Json& json) {
  Reader r(json);
  RepairRow row{.mined_id = r.get<std::string>("mined_id"),
                .teacher = r.get<std::string>("teacher"),
                .trajectory = r.get<std::string>("trajectory")};
  auto status = parse_repair_status(r.get<std::string>("status"));
  if (!status) r.fail("status", "unknown status");
  row.status = status.value_or(RepairStatus::kNotRepaired);
  row.turns = r.get<int>("turns");
  row.chosen_turn = r.get<int>("chosen_turn");
  row.reply = r.get<std::string>("reply");
  row.code = r.get<std::string>("code");
  row.evaluation = r.evaluation("evaluation");
  row.reason = r.get_or<std::string>("reason", "");  // absent in rows of older versions
  return r.result(std::move(row));
}

Json to_json(const VerifiedRow& row) {
  return {{"mined_id", row.mined_id}, {"status", to_string(row.status)},
          {"reason", row.reason},     {"gpu", row.gpu},
          {"teacher", row.teacher},   {"evaluation", eval::to_json(row.evaluation)}};
}

util::Expected<VerifiedRow> verified_row_from_json(const Json& json) {
  Reader r(json);
  VerifiedRow row{.mined_id = r.get<std::string>("mined_id")};
  auto status = parse_verify_status(r.get<std::string>("status"));
  if (!status) r.fail("status", "unknown status");
  row.status = status.value_or(VerifyStatus::kRejected);
  row.reason = r.get<std::string>("reason");
  row.gpu = r.get_or<std::string>("gpu", "");
  row.teacher = r.get_or<std::string>("teacher", "");  // absent in rows of older versions
  row.evaluation = r.evaluation("evaluation");
  return r.result(std::move(row));
}

Json to_json(const ExplainedRow& row) {
  return {{"mined_id", row.mined_id},     {"explainer", row.explainer},
          {"length_bin", row.length_bin}, {"reasoning", row.reasoning},
          {"attempts", row.attempts},     {"rejections", row.rejections},
          {"teacher", row.teacher}};
}

util::Expected<ExplainedRow> explained_row_from_json(const Json& json) {
  Reader r(json);
  ExplainedRow row{.mined_id = r.get<std::string>("mined_id"),
                   .explainer = r.get<std::string>("explainer"),
                   .length_bin = r.get<std::string>("length_bin"),
                   .reasoning = r.get<std::string>("reasoning"),
                   .attempts = r.get<int>("attempts"),
                   .rejections = r.get_or<std::vector<std::string>>("rejections", {})};
  row.teacher = r.get_or<std::string>("teacher", "");  // absent in rows of older versions
  return r.result(std::move(row));
}

}  // namespace ptxbench::fixit
