// Task files and the suite: reading, duplicate detection, the built-in suite's location.
#include "ptxbench/task/task_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "ptxbench/config.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::task {
namespace {

// "gemm_n128_k2048" before "gemm_n2048_k4096": digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      auto digits_a = a.substr(i, i_end - i), digits_b = b.substr(j, j_end - j);
      // Without leading zeros, the longer run is the larger number.
      while (digits_a.size() > 1 && digits_a.front() == '0') digits_a.remove_prefix(1);
      while (digits_b.size() > 1 && digits_b.front() == '0') digits_b.remove_prefix(1);
      if (digits_a.size() != digits_b.size()) return digits_a.size() < digits_b.size();
      if (digits_a != digits_b) return digits_a < digits_b;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

util::Expected<Task> load_task_file(const std::filesystem::path& path) {
  auto text = util::read_file(path, util::kMaxTaskFileBytes);
  if (!text) return text.error();
  return parse_task(*text, path);
}

util::Expected<std::vector<Task>> load_suite(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return util::make_error(dir.string() + ": not a directory of task files");
  std::vector<std::filesystem::path> files;
  std::vector<std::string> problems;
  // Entries whose type cannot be read (a symlink loop, a dangling link) are problems of their
  // own file; the error_code overloads never throw.
  const auto type_problem = [&](const std::filesystem::directory_entry& entry) {
    std::error_code type_ec;
    const auto status = entry.status(type_ec);
    if (type_ec)  // it is listed, so "no such file" means a dangling link
      problems.push_back(entry.path().string() + ": " + type_ec.message());
    return status;
  };
  for (const auto& family : std::filesystem::directory_iterator(dir, ec)) {
    if (!std::filesystem::is_directory(type_problem(family))) continue;
    std::error_code family_ec;
    for (const auto& entry : std::filesystem::directory_iterator(family.path(), family_ec)) {
      if (entry.path().extension() != ".json") continue;
      if (std::filesystem::is_regular_file(type_problem(entry))) files.push_back(entry.path());
    }
    if (family_ec) problems.push_back(family.path().string() + ": " + family_ec.message());
  }
  if (ec) return util::make_error(dir.string() + ": " + ec.message());
  if (!problems.empty()) return util::make_error(fmt::format("{}", fmt::join(problems, "\n")));
  if (files.empty()) return util::make_error(dir.string() + ": no tasks/<family>/*.json files");

  std::vector<Task> tasks;
  for (const auto& file : files) {
    auto task = load_task_file(file);
    if (task) {
      tasks.push_back(std::move(*task));
    } else {
      problems.push_back(task.error().message);
    }
  }
  std::sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) {
    if (a.family != b.family) return a.family < b.family;
    return natural_less(a.name, b.name);
  });
  std::map<std::string, const Task*> by_name;
  for (const auto& task : tasks) {
    auto [it, inserted] = by_name.emplace(task.name, &task);
    if (!inserted) {
      problems.push_back(fmt::format("{}: name: duplicate task name '{}' (also in {})",
                                     task.source.string(), task.name, it->second->source.string()));
    }
  }
  if (!problems.empty()) return util::make_error(fmt::format("{}", fmt::join(problems, "\n")));
  return tasks;
}

std::filesystem::path default_tasks_dir() {
  if (const char* home = std::getenv("PTXBENCH_HOME"); home != nullptr && *home != '\0')
    return std::filesystem::path(home) / "tasks";
  return config::source_path("tasks");
}

const Task* find_task(const std::vector<Task>& tasks, std::string_view name) {
  auto it =
      std::find_if(tasks.begin(), tasks.end(), [name](const Task& t) { return t.name == name; });
  return it == tasks.end() ? nullptr : &*it;
}

}  // namespace ptxbench::task
