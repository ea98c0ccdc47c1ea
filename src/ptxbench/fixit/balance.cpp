#include "ptxbench/fixit/balance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "ptxbench/util/field_reader.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::fixit {
namespace {

using Json = nlohmann::json;

std::uint64_t seeded_rank(std::uint64_t seed, std::string_view key) {
  return util::Fnv1a64().add(std::to_string(seed)).add(key).value();
}

std::string stratum_of(const MinedRow& row) {
  return fmt::format("{}/turn-{}", eval::to_string(verdict_kind(row)), row.source.turn);
}

// Takes `seats` rows out of `groups` (each a list of row indices) by largest remainder, the
// rows of each group in seeded order.
std::vector<std::size_t> take(const std::vector<std::vector<std::size_t>>& groups,
                              const std::vector<std::string>& keys, int seats,
                              const std::vector<MinedRow>& rows, std::uint64_t seed,
                              std::vector<int>* taken_out) {
  std::vector<int> sizes;
  std::vector<std::uint64_t> ties;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    sizes.push_back(static_cast<int>(groups[g].size()));
    ties.push_back(seeded_rank(seed, keys[g]));
  }
  std::vector<int> taken = largest_remainder(sizes, seats, ties);
  std::vector<std::size_t> picked;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::size_t> order = groups[g];
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return seeded_rank(seed, rows[a].id) < seeded_rank(seed, rows[b].id);
    });
    picked.insert(picked.end(), order.begin(), order.begin() + taken[g]);
  }
  if (taken_out != nullptr) *taken_out = taken;
  return picked;
}

}  // namespace

std::vector<int> largest_remainder(const std::vector<int>& sizes, int seats,
                                   const std::vector<std::uint64_t>& tie_order) {
  const long total = std::accumulate(sizes.begin(), sizes.end(), 0L);
  std::vector<int> out(sizes.size(), 0);
  if (total == 0 || seats <= 0) return out;
  seats = static_cast<int>(std::min<long>(seats, total));
  std::vector<long> remainder(sizes.size());
  int given = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    long numerator = static_cast<long>(seats) * sizes[i];  // exact: quota = numerator / total
    out[i] = static_cast<int>(numerator / total);
    remainder[i] = numerator % total;
    given += out[i];
  }
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (remainder[a] != remainder[b]) return remainder[a] > remainder[b];
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return tie_order[a] < tie_order[b];
  });
  // Quotas never exceed sizes, so the floors leave at most one seat per group to hand out.
  for (std::size_t k = 0; given < seats && k < order.size(); ++k) {
    if (out[order[k]] < sizes[order[k]]) {
      ++out[order[k]];
      ++given;
    }
  }
  return out;
}

Selection balance(const std::vector<MinedRow>& rows, const Recipe& recipe) {
  Selection selection{.recipe = recipe};
  std::map<std::string, std::map<std::string, std::vector<std::size_t>>> by_task;
  for (std::size_t i = 0; i < rows.size(); ++i)
    by_task[rows[i].task][stratum_of(rows[i])].push_back(i);

  std::set<std::size_t> chosen;
  if (recipe.mode == RecipeMode::kVolume) {
    for (std::size_t i = 0; i < rows.size(); ++i) chosen.insert(i);
  } else {
    // Per-task quotas: the cap, then the total split over tasks in proportion to what is left.
    std::vector<std::string> tasks;
    std::vector<int> capped;
    std::vector<std::uint64_t> ties;
    for (const auto& [task, strata] : by_task) {
      int size = 0;
      for (const auto& [key, members] : strata) size += static_cast<int>(members.size());
      tasks.push_back(task);
      capped.push_back(recipe.per_task_cap ? std::min(size, *recipe.per_task_cap) : size);
      ties.push_back(seeded_rank(recipe.seed, task));
    }
    std::vector<int> quota = capped;
    int sum = std::accumulate(capped.begin(), capped.end(), 0);
    if (recipe.total && *recipe.total < sum) quota = largest_remainder(capped, *recipe.total, ties);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      std::vector<std::vector<std::size_t>> groups;
      std::vector<std::string> keys;
      for (const auto& [key, members] : by_task[tasks[t]]) {
        groups.push_back(members);
        keys.push_back(tasks[t] + "/" + key);
      }
      for (std::size_t index : take(groups, keys, quota[t], rows, recipe.seed, nullptr))
        chosen.insert(index);
    }
  }
  for (const auto& [task, strata] : by_task) {
    for (const auto& [key, members] : strata) {
      StratumCount& count = selection.strata[task][key];
      count.available = static_cast<int>(members.size());
      count.taken = static_cast<int>(std::count_if(
          members.begin(), members.end(), [&](std::size_t i) { return chosen.contains(i); }));
    }
  }
  for (std::size_t index : chosen) selection.ids.push_back(rows[index].id);
  return selection;
}

util::Expected<Recipe> recipe_from_json(const Json& json) {
  Recipe recipe;
  util::FieldReader read(json, "");
  read.read("name", recipe.name);
  std::string mode = "balanced";
  read.read("mode", mode);
  if (read.ok() && mode != "balanced" && mode != "volume")
    read.fail("mode", "expected balanced or volume, got " + mode);
  recipe.mode = mode == "volume" ? RecipeMode::kVolume : RecipeMode::kBalanced;
  read.read_integer("per_task_cap", 1, INT32_MAX, recipe.per_task_cap);
  read.read_integer("total", 1, INT32_MAX, recipe.total);
  read.read("seed", recipe.seed);
  if (const auto& problem = read.finish(); !problem.empty()) return util::make_error(problem);
  if (recipe.name.empty() || recipe.name.find('/') != std::string::npos)
    return util::make_error("name: must be a non-empty file name");
  return recipe;
}

Json to_json(const Recipe& recipe) {
  Json json{{"name", recipe.name},
            {"mode", recipe.mode == RecipeMode::kVolume ? "volume" : "balanced"},
            {"seed", recipe.seed}};
  if (recipe.per_task_cap) json["per_task_cap"] = *recipe.per_task_cap;
  if (recipe.total) json["total"] = *recipe.total;
  return json;
}

Json to_json(const Selection& selection) {
  Json strata = Json::object();
  for (const auto& [task, cells] : selection.strata)
    for (const auto& [key, count] : cells)
      strata[task][key] = {{"available", count.available}, {"taken", count.taken}};
  return {{"recipe", to_json(selection.recipe)}, {"ids", selection.ids}, {"strata", strata}};
}

namespace {

// "strata": task -> "<VERDICT>/turn-<N>" -> {available, taken}; the first problem is kept in
// `top`.
void read_strata(util::FieldReader& top, const Json& strata, Selection& selection) {
  if (!strata.is_object()) return top.fail("strata", "expected a mapping");
  for (const auto& [task, cells] : strata.items()) {
    if (!cells.is_object()) return top.fail("strata." + task, "expected a mapping");
    for (const auto& [key, count] : cells.items()) {
      util::FieldReader read(count, fmt::format("strata.{}.{}.", task, key));
      StratumCount& cell = selection.strata[task][key];
      read.read_integer("available", 0, INT32_MAX, cell.available);
      read.read_integer("taken", 0, INT32_MAX, cell.taken);
      if (const auto& problem = read.finish(); !problem.empty()) return top.fail("", problem);
    }
  }
}

}  // namespace

util::Expected<Selection> selection_from_json(const Json& json) {
  util::FieldReader read(json, "");
  read.mark("recipe");
  if (read.ok() && !read.has("recipe")) read.fail("recipe", "required");
  Selection selection;
  if (read.ok()) {
    auto recipe = recipe_from_json(json["recipe"]);
    if (recipe)
      selection.recipe = *recipe;
    else
      read.fail("recipe", recipe.error().message);
  }
  // Read by hand: a wrong id is named by its index, not by the whole list.
  read.mark("ids");
  if (read.ok() && !read.has("ids")) read.fail("ids", "required");
  if (read.ok() && !json["ids"].is_array()) read.fail("ids", "expected a list");
  for (std::size_t i = 0; read.ok() && i < json["ids"].size(); ++i) {
    const Json& id = json["ids"][i];
    if (id.is_string())
      selection.ids.push_back(id.get<std::string>());
    else
      read.fail(fmt::format("ids[{}]", i), "expected a string");
  }
  read.mark("strata");
  if (read.ok() && read.has("strata")) read_strata(read, json["strata"], selection);
  if (const auto& problem = read.finish(); !problem.empty()) return util::make_error(problem);
  return selection;
}

}  // namespace ptxbench::fixit
