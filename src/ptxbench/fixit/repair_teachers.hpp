// Repairs are kept per (mined row, teacher): a second teacher's repairs sit beside the first's,
// and so do their verification and explanations. Explain and export work on one teacher's
// repairs: the one named, or the only one. Rows written before the teacher was part of the key
// (verified and explained rows without a `teacher`) belong to whichever teacher is chosen: such
// folders had one teacher.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ptxbench/fixit/explanation_variant.hpp"
#include "ptxbench/fixit/rows.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

// `before` with `fresh` merged in: a fresh row replaces the row of the same mined id and
// teacher; rows of other selections and other teachers are kept.
std::vector<RepairRow> merge_repairs(std::vector<RepairRow> before,
                                     const std::vector<RepairRow>& fresh);

std::set<std::string> teachers_of(const std::vector<RepairRow>& repairs);

// The named teacher (it must have repairs among `repairs`), or the only one; "" when there are
// no repairs. Error: several and none named, naming them and `--teacher-name`.
util::Expected<std::string> choose_teacher(const std::vector<RepairRow>& repairs,
                                           const std::string& name);

// The rows of `teacher` and rows without a teacher; all rows when `teacher` is empty.
template <class Row>
std::vector<Row> rows_of_teacher(const std::vector<Row>& rows, const std::string& teacher) {
  if (teacher.empty()) return rows;
  std::vector<Row> out;
  for (const auto& row : rows)
    if (row.teacher == teacher || row.teacher.empty()) out.push_back(row);
  return out;
}

// The export folder under export/<recipe>/: "<length>-<explainer>" (kUnexplainedKey without
// explanations), and "--<teacher>" after it when the folder holds repairs of several teachers.
std::string export_key(const std::optional<ExplanationVariant>& variant, const std::string& teacher,
                       bool several_teachers);

}  // namespace ptxbench::fixit
