#include "ptxbench/eval/evaluation_json.hpp"

#include <fmt/format.h>

#include "ptxbench/eval/correctness/accuracy_figures_json.hpp"

namespace ptxbench::eval {
namespace {
using nlohmann::json;

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& value) {
  j[key] = value ? json(*value) : json(nullptr);
}

template <class T>
std::optional<T> get_optional(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

// Records written before the two rules existed were judged by the element rule alone.
void read_accuracy(const json& o, OutputCheck& check) {
  check.rule = task::CorrectnessRule::kMatchesLibrary;
  if (auto rule = o.find("rule"); rule != o.end() && rule->is_string()) {
    auto parsed = task::parse_correctness_rule(rule->get<std::string>());
    if (!parsed) {
      throw std::runtime_error("outputs.rule: unknown '" + rule->get<std::string>() + "'");
    }
    check.rule = *parsed;
  }
  check.matches_library = get_or(o, "matches_library", check.passed);
  if (auto a = o.find("accuracy"); a != o.end() && a->is_object())
    check.accuracy = correctness::accuracy_figures_from_json(*a);
  check.accuracy_unavailable = get_or<std::string>(o, "accuracy_unavailable", "");
}

json timing_to_json(const TimingStats& t) {
  return {{"median_ms", t.median_ms},
          {"q1_ms", t.q1_ms},
          {"q3_ms", t.q3_ms},
          {"min_ms", t.min_ms},
          {"max_ms", t.max_ms},
          {"samples", t.samples},
          {"dropped_throttled", t.dropped_throttled},
          {"relative_noise", t.relative_noise},
          {"sm_clock_mhz", t.sm_clock_mhz},
          {"kernels_per_call", t.kernels_per_call},
          {"converged", t.converged}};
}

TimingStats timing_from_json(const json& j) {
  TimingStats t;
  t.median_ms = j.at("median_ms").get<double>();
  t.q1_ms = get_or(j, "q1_ms", 0.0);
  t.q3_ms = get_or(j, "q3_ms", 0.0);
  t.min_ms = get_or(j, "min_ms", 0.0);
  t.max_ms = get_or(j, "max_ms", 0.0);
  t.samples = get_or(j, "samples", 0);
  t.dropped_throttled = get_or(j, "dropped_throttled", 0);
  t.relative_noise = get_or(j, "relative_noise", 0.0);
  t.sm_clock_mhz = get_or(j, "sm_clock_mhz", 0.0);
  t.kernels_per_call = get_or(j, "kernels_per_call", 0);
  t.converged = get_or(j, "converged", false);
  return t;
}

json launch_to_json(const LaunchResources& l) {
  return {{"launches", l.launches},
          {"registers_per_thread", l.registers_per_thread},
          {"static_shared_bytes", l.static_shared_bytes},
          {"dynamic_shared_bytes", l.dynamic_shared_bytes},
          {"grid", l.grid},
          {"block", l.block},
          {"cluster", l.cluster}};
}

LaunchResources launch_from_json(const json& j) {
  LaunchResources l;
  l.launches = get_or<std::int64_t>(j, "launches", 0);
  l.registers_per_thread = get_or(j, "registers_per_thread", 0);
  l.static_shared_bytes = get_or(j, "static_shared_bytes", 0);
  l.dynamic_shared_bytes = get_or(j, "dynamic_shared_bytes", 0);
  l.grid = get_or(j, "grid", l.grid);
  l.block = get_or(j, "block", l.block);
  l.cluster = get_or(j, "cluster", l.cluster);
  return l;
}

json speed_of_light_to_json(const SpeedOfLight& s) {
  return {{"flops", s.flops},
          {"bytes", s.bytes},
          {"peak_tflops", s.peak_tflops},
          {"hbm_gbytes_per_s", s.hbm_gbytes_per_s},
          {"sm_clock_mhz", s.sm_clock_mhz},
          {"compute_bound_ms", s.compute_bound_ms},
          {"memory_bound_ms", s.memory_bound_ms},
          {"bound_ms", s.bound_ms},
          {"fraction", s.fraction}};
}

SpeedOfLight speed_of_light_from_json(const json& j) {
  return SpeedOfLight{.flops = get_or(j, "flops", 0.0),
                      .bytes = get_or(j, "bytes", 0.0),
                      .peak_tflops = get_or(j, "peak_tflops", 0.0),
                      .hbm_gbytes_per_s = get_or(j, "hbm_gbytes_per_s", 0.0),
                      .sm_clock_mhz = get_or(j, "sm_clock_mhz", 0.0),
                      .compute_bound_ms = get_or(j, "compute_bound_ms", 0.0),
                      .memory_bound_ms = get_or(j, "memory_bound_ms", 0.0),
                      .bound_ms = get_or(j, "bound_ms", 0.0),
                      .fraction = get_or(j, "fraction", 0.0)};
}

json timing_window_to_json(const TimingWindow& w) {
  json j{{"alone", w.alone ? json(*w.alone) : json(nullptr)},
         {"attempts", w.attempts},
         {"others", w.others}};
  if (!w.note.empty()) j["note"] = w.note;
  return j;
}

TimingWindow timing_window_from_json(const json& j) {
  TimingWindow w;
  if (auto alone = j.find("alone"); alone != j.end() && alone->is_boolean())
    w.alone = alone->get<bool>();
  w.attempts = get_or(j, "attempts", 1);
  w.others = get_or(j, "others", std::vector<std::string>{});
  w.note = get_or<std::string>(j, "note", "");
  return w;
}

template <class E>
E parse_enum(const json& j, const char* key, std::optional<E> (*parse)(std::string_view)) {
  auto text = j.at(key).get<std::string>();
  auto value = parse(text);
  if (!value) throw std::invalid_argument(fmt::format("{}: unknown value '{}'", key, text));
  return *value;
}

}  // namespace

json to_json(const Evaluation& e) {
  json j;
  j["schema_version"] = e.schema_version;
  j["task"] = e.task;
  j["arch"] = std::string(arch::to_string(e.arch));
  j["source_name"] = e.source_name;
  j["source_hash"] = e.source_hash;
  j["verdict"] = std::string(to_string(e.verdict));
  j["message"] = e.message;
  j["created_at"] = e.created_at;
  j["sandbox"] = e.sandbox;
  if (!e.judge.empty()) j["judge"] = e.judge;
  if (!e.profile.empty()) j["profile"] = e.profile;
  j["wall_seconds"] = e.wall_seconds;
  j["stages"] = json::array();
  for (const auto& s : e.stages) {
    json stage{{"stage", std::string(to_string(s.stage))},
               {"status", std::string(to_string(s.status))},
               {"seconds", s.seconds},
               {"message", s.message}};
    if (s.reference_cache)
      stage["reference_cache"] = {{"hits", s.reference_cache->hits},
                                  {"misses", s.reference_cache->misses}};
    if (s.processes > 0) stage["processes"] = s.processes;
    if (!s.parts.empty()) stage["parts"] = parts_to_json(s.parts);
    j["stages"].push_back(std::move(stage));
  }
  j["compile"] = {{"command", e.compile.command},
                  {"seconds", e.compile.seconds},
                  {"log", e.compile.log},
                  {"log_truncated", e.compile.log_truncated},
                  {"cached", e.compile.cached}};
  j["kernels"] = json::array();
  for (const auto& k : e.kernels) {
    j["kernels"].push_back({{"name", k.name},
                            {"display_name", k.display_name},
                            {"registers", k.registers},
                            {"shared_bytes", k.shared_bytes},
                            {"spill_store_bytes", k.spill_store_bytes},
                            {"spill_load_bytes", k.spill_load_bytes},
                            {"static_families", k.static_families},
                            {"executed_families", k.executed_families}});
    auto& kj = j["kernels"].back();
    if (!k.executed_by.empty()) kj["executed_by"] = k.executed_by;
    if (!k.executed_flop_share.empty()) kj["executed_flop_share"] = k.executed_flop_share;
    kj["launched"] = k.launched ? launch_to_json(*k.launched) : json(nullptr);
  }
  j["families"] = json::array();
  for (const auto& f : e.families) {
    json fj{{"family", f.family},
            {"requested", f.requested},
            {"static_count", f.static_count},
            {"substantial", f.substantial}};
    put_optional(fj, "executed_count", f.executed_count);
    put_optional(fj, "flop_share", f.flop_share);
    j["families"].push_back(fj);
  }
  j["workloads"] = json::array();
  for (const auto& w : e.workloads) {
    json wj{{"workload", w.workload}, {"headline", w.headline},
            {"unseen", w.unseen},     {"status", std::string(to_string(w.status))},
            {"message", w.message},   {"trials", w.trials}};
    wj["outputs"] = json::array();
    for (const auto& o : w.outputs) {
      json oj{{"name", o.name},
              {"max_abs_error", o.max_abs_error},
              {"max_rel_error", o.max_rel_error},
              {"matched_ratio", o.matched_ratio},
              {"first_bad_index", o.first_bad_index},
              {"nan_count", o.nan_count},
              {"inf_count", o.inf_count},
              {"passed", o.passed},
              {"rule", std::string(task::to_string(o.rule))},
              {"matches_library", o.matches_library}};
      oj["as_accurate"] = o.accuracy ? json(o.accuracy->passed) : json(nullptr);
      oj["accuracy"] = o.accuracy ? correctness::to_json(*o.accuracy) : json(nullptr);
      if (!o.accuracy_unavailable.empty()) oj["accuracy_unavailable"] = o.accuracy_unavailable;
      wj["outputs"].push_back(std::move(oj));
    }
    wj["candidate"] = w.candidate ? timing_to_json(*w.candidate) : json(nullptr);
    wj["baseline"] = w.baseline ? timing_to_json(*w.baseline) : json(nullptr);
    put_optional(wj, "speedup", w.speedup);
    put_optional(wj, "tflops", w.tflops);
    wj["speed_of_light"] =
        w.speed_of_light ? speed_of_light_to_json(*w.speed_of_light) : json(nullptr);
    if (w.timing_window) wj["timing_window"] = timing_window_to_json(*w.timing_window);
    j["workloads"].push_back(wj);
  }
  if (e.generalisation) {
    const auto& g = *e.generalisation;
    j["generalisation"] = {{"policy", g.policy},
                           {"shown_passed", g.shown_passed},
                           {"shown_total", g.shown_total},
                           {"unseen_passed", g.unseen_passed},
                           {"unseen_total", g.unseen_total},
                           {"failed_unseen", g.failed_unseen}};
  } else {
    j["generalisation"] = nullptr;
  }
  j["input_seed"] = e.input_seed ? json(*e.input_seed) : json(nullptr);
  if (e.seed_pool) j["seed_pool"] = {{"size", e.seed_pool->size}, {"index", e.seed_pool->index}};
  if (e.cached) j["cached"] = {{"verdict", true}, {"key", e.cached->key}, {"from", e.cached->from}};
  j["toolchain"] = e.toolchain;
  return j;
}

util::Expected<Evaluation> evaluation_from_json(const json& j) {
  try {
    Evaluation e;
    e.schema_version = j.at("schema_version").get<int>();
    if (e.schema_version != kSchemaVersion) {
      return util::make_error(
          fmt::format("schema_version {} is not supported (this build reads {})", e.schema_version,
                      kSchemaVersion));
    }
    e.task = j.at("task").get<std::string>();
    auto a = arch::parse(j.at("arch").get<std::string>());
    if (!a) return util::make_error("arch: unknown value");
    e.arch = *a;
    e.source_name = get_or<std::string>(j, "source_name", "");
    e.source_hash = get_or<std::string>(j, "source_hash", "");
    e.verdict = parse_enum<Verdict>(j, "verdict", &parse_verdict);
    e.message = get_or<std::string>(j, "message", "");
    e.created_at = get_or<std::string>(j, "created_at", "");
    e.sandbox = get_or<std::string>(j, "sandbox", "off");
    e.judge = get_or<std::string>(j, "judge", "");
    e.profile = get_or<std::string>(j, "profile", "");
    e.wall_seconds = get_or(j, "wall_seconds", 0.0);
    for (const auto& s : j.value("stages", json::array())) {
      e.stages.push_back(
          StageRecord{.stage = parse_enum<Stage>(s, "stage", &parse_stage),
                      .status = parse_enum<StageStatus>(s, "status", &parse_stage_status),
                      .seconds = get_or(s, "seconds", 0.0),
                      .message = get_or<std::string>(s, "message", "")});
      if (auto r = s.find("reference_cache"); r != s.end() && r->is_object())
        e.stages.back().reference_cache =
            CacheCounts{.hits = get_or(*r, "hits", std::uint64_t{0}),
                        .misses = get_or(*r, "misses", std::uint64_t{0})};
      e.stages.back().processes = get_or(s, "processes", 0);
      if (auto p = s.find("parts"); p != s.end()) e.stages.back().parts = parts_from_json(*p);
    }
    if (auto c = j.find("compile"); c != j.end() && c->is_object()) {
      e.compile.command = c->value("command", std::vector<std::string>{});
      e.compile.seconds = get_or(*c, "seconds", 0.0);
      e.compile.log = get_or<std::string>(*c, "log", "");
      e.compile.log_truncated = get_or(*c, "log_truncated", false);
      e.compile.cached = get_or(*c, "cached", false);
    }
    for (const auto& k : j.value("kernels", json::array())) {
      KernelReport r;
      r.name = k.at("name").get<std::string>();
      r.display_name = get_or<std::string>(k, "display_name", r.name);
      r.registers = get_or(k, "registers", 0);
      r.shared_bytes = get_or(k, "shared_bytes", 0);
      r.spill_store_bytes = get_or(k, "spill_store_bytes", 0);
      r.spill_load_bytes = get_or(k, "spill_load_bytes", 0);
      r.static_families = k.value("static_families", std::map<std::string, std::int64_t>{});
      r.executed_families = k.value("executed_families", std::map<std::string, std::int64_t>{});
      r.executed_by = get_or<std::string>(k, "executed_by", "");
      r.executed_flop_share = k.value("executed_flop_share", std::map<std::string, double>{});
      if (auto l = k.find("launched"); l != k.end() && l->is_object())
        r.launched = launch_from_json(*l);
      e.kernels.push_back(std::move(r));
    }
    for (const auto& f : j.value("families", json::array())) {
      e.families.push_back(
          FamilyEvidence{.family = f.at("family").get<std::string>(),
                         .requested = get_or(f, "requested", false),
                         .static_count = get_or<std::int64_t>(f, "static_count", 0),
                         .executed_count = get_optional<std::int64_t>(f, "executed_count"),
                         .flop_share = get_optional<double>(f, "flop_share"),
                         .substantial = get_or(f, "substantial", false)});
    }
    for (const auto& w : j.value("workloads", json::array())) {
      WorkloadResult r;
      r.workload = w.at("workload").get<std::string>();
      r.headline = get_or(w, "headline", false);
      r.unseen = get_or(w, "unseen", false);
      r.status = parse_enum<Verdict>(w, "status", &parse_verdict);
      r.message = get_or<std::string>(w, "message", "");
      r.trials = get_or(w, "trials", 0);
      for (const auto& o : w.value("outputs", json::array())) {
        r.outputs.push_back(
            OutputCheck{.name = o.at("name").get<std::string>(),
                        .max_abs_error = get_or(o, "max_abs_error", 0.0),
                        .max_rel_error = get_or(o, "max_rel_error", 0.0),
                        .matched_ratio = get_or(o, "matched_ratio", 0.0),
                        .first_bad_index = get_or<std::int64_t>(o, "first_bad_index", -1),
                        .nan_count = get_or<std::int64_t>(o, "nan_count", 0),
                        .inf_count = get_or<std::int64_t>(o, "inf_count", 0),
                        .passed = get_or(o, "passed", false)});
        read_accuracy(o, r.outputs.back());
      }
      if (auto c = w.find("candidate"); c != w.end() && c->is_object())
        r.candidate = timing_from_json(*c);
      if (auto b = w.find("baseline"); b != w.end() && b->is_object())
        r.baseline = timing_from_json(*b);
      r.speedup = get_optional<double>(w, "speedup");
      r.tflops = get_optional<double>(w, "tflops");
      if (auto sol = w.find("speed_of_light"); sol != w.end() && sol->is_object())
        r.speed_of_light = speed_of_light_from_json(*sol);
      if (auto window = w.find("timing_window"); window != w.end() && window->is_object())
        r.timing_window = timing_window_from_json(*window);
      e.workloads.push_back(std::move(r));
    }
    if (auto g = j.find("generalisation"); g != j.end() && g->is_object()) {
      e.generalisation =
          Generalisation{.policy = get_or<std::string>(*g, "policy", ""),
                         .shown_passed = get_or(*g, "shown_passed", 0),
                         .shown_total = get_or(*g, "shown_total", 0),
                         .unseen_passed = get_or(*g, "unseen_passed", 0),
                         .unseen_total = get_or(*g, "unseen_total", 0),
                         .failed_unseen = g->value("failed_unseen", std::vector<std::string>{})};
    }
    e.input_seed = get_optional<std::uint64_t>(j, "input_seed");
    if (auto p = j.find("seed_pool"); p != j.end() && p->is_object())
      e.seed_pool =
          SeedPoolDraw{.size = p->at("size").get<int>(), .index = p->at("index").get<int>()};
    if (auto c = j.find("cached"); c != j.end() && c->is_object())
      e.cached = CachedVerdict{.key = get_or<std::string>(*c, "key", ""),
                               .from = get_or<std::string>(*c, "from", "")};
    e.toolchain = j.value("toolchain", std::map<std::string, std::string>{});
    return e;
  } catch (const std::exception& ex) {
    return util::make_error(std::string("evaluation JSON: ") + ex.what());
  }
}

}  // namespace ptxbench::eval
