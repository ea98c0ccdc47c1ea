#include "ptxbench/fixit/repair_teachers.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace ptxbench::fixit {

std::vector<RepairRow> merge_repairs(std::vector<RepairRow> before,
                                     const std::vector<RepairRow>& fresh) {
  using Key = std::pair<std::string, std::string>;
  std::map<Key, std::size_t> where;
  for (std::size_t i = 0; i < before.size(); ++i)
    where[{before[i].mined_id, before[i].teacher}] = i;
  for (const auto& row : fresh) {
    if (auto it = where.find({row.mined_id, row.teacher}); it != where.end())
      before[it->second] = row;
    else
      before.push_back(row);
  }
  return before;
}

std::set<std::string> teachers_of(const std::vector<RepairRow>& repairs) {
  std::set<std::string> out;
  for (const auto& row : repairs) out.insert(row.teacher);
  return out;
}

util::Expected<std::string> choose_teacher(const std::vector<RepairRow>& repairs,
                                           const std::string& name) {
  const std::set<std::string> teachers = teachers_of(repairs);
  if (!name.empty()) {
    if (teachers.contains(name) || teachers.empty()) return name;
    return util::make_error(fmt::format("no repairs of teacher '{}' (repairs are by: {})", name,
                                        fmt::join(teachers, ", ")));
  }
  if (teachers.size() <= 1) return teachers.empty() ? std::string() : *teachers.begin();
  return util::make_error(
      fmt::format("repairs.jsonl holds repairs of {} teachers: {}; pick one with --teacher-name",
                  teachers.size(), fmt::join(teachers, ", ")));
}

std::string export_key(const std::optional<ExplanationVariant>& variant, const std::string& teacher,
                       bool several_teachers) {
  std::string key = variant ? variant->key() : kUnexplainedKey;
  if (!several_teachers || teacher.empty()) return key;
  key += "--";
  for (char c : teacher) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    key += plain ? c : '_';
  }
  return key;
}

}  // namespace ptxbench::fixit
