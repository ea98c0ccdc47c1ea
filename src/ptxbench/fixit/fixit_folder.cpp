#include "ptxbench/fixit/fixit_folder.hpp"

#include <fmt/format.h>

#include <sstream>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

template <class Row, class Parse>
util::Expected<std::vector<Row>> read_rows(const fs::path& path, Parse parse) {
  auto lines = read_jsonl(path);
  if (!lines) return lines.error();
  std::vector<Row> rows;
  for (std::size_t i = 0; i < lines->size(); ++i) {
    auto row = parse((*lines)[i]);
    if (!row)
      return util::make_error(fmt::format("{}:{}: {}", path.string(), i + 1, row.error().message));
    rows.push_back(std::move(*row));
  }
  return rows;
}

template <class Row>
void write_rows(const fs::path& path, const std::vector<Row>& rows) {
  std::vector<Json> lines;
  lines.reserve(rows.size());
  for (const auto& row : rows) lines.push_back(to_json(row));
  util::write_file_atomic(path, to_jsonl(lines));
}

}  // namespace

util::Expected<std::vector<Json>> read_jsonl(const fs::path& path) {
  std::vector<Json> rows;
  if (!fs::exists(path)) return rows;
  auto text = util::read_file(path);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object())
      return util::make_error(fmt::format("{}:{}: not a JSON object", path.string(), number));
    rows.push_back(std::move(json));
  }
  return rows;
}

std::string to_jsonl(const std::vector<Json>& rows) {
  std::string out;
  for (const auto& row : rows) out += row.dump() + "\n";
  return out;
}

util::Expected<FixitFolder> FixitFolder::open(const fs::path& root) {
  std::error_code error;
  fs::create_directories(root, error);
  if (error) return util::make_error(fmt::format("{}: {}", root.string(), error.message()));
  auto lock = util::FolderLock::acquire(root, "Fixit folder");
  if (!lock) return lock.error();
  return FixitFolder(root, std::move(*lock));
}

fs::path FixitFolder::selection_path(const std::string& recipe) const {
  return root_ / "selections" / (recipe + ".json");
}

fs::path FixitFolder::export_dir(const std::string& recipe) const {
  return root_ / "export" / recipe;
}

util::Expected<std::vector<MinedRow>> FixitFolder::read_mined() const {
  return read_rows<MinedRow>(mined_path(), mined_row_from_json);
}
util::Expected<std::vector<RepairRow>> FixitFolder::read_repairs() const {
  return read_rows<RepairRow>(repairs_path(), repair_row_from_json);
}
util::Expected<std::vector<VerifiedRow>> FixitFolder::read_verified() const {
  return read_rows<VerifiedRow>(verified_path(), verified_row_from_json);
}
util::Expected<std::vector<ExplainedRow>> FixitFolder::read_explained() const {
  return read_rows<ExplainedRow>(explained_path(), explained_row_from_json);
}

util::Expected<FolderRows> read_folder_rows(const fs::path& root) {
  auto mined = read_rows<MinedRow>(root / kMinedFile, mined_row_from_json);
  if (!mined) return mined.error();
  auto repairs = read_rows<RepairRow>(root / kRepairsFile, repair_row_from_json);
  if (!repairs) return repairs.error();
  auto verified = read_rows<VerifiedRow>(root / kVerifiedFile, verified_row_from_json);
  if (!verified) return verified.error();
  auto explained = read_rows<ExplainedRow>(root / kExplainedFile, explained_row_from_json);
  if (!explained) return explained.error();
  return FolderRows{.mined = std::move(*mined),
                    .repairs = std::move(*repairs),
                    .verified = std::move(*verified),
                    .explained = std::move(*explained)};
}

void FixitFolder::write_mined(const std::vector<MinedRow>& rows) const {
  write_rows(mined_path(), rows);
}
void FixitFolder::write_repairs(const std::vector<RepairRow>& rows) const {
  write_rows(repairs_path(), rows);
}
void FixitFolder::write_verified(const std::vector<VerifiedRow>& rows) const {
  write_rows(verified_path(), rows);
}
void FixitFolder::write_explained(const std::vector<ExplainedRow>& rows) const {
  write_rows(explained_path(), rows);
}

void FixitFolder::record_stage(const std::string& stage, const Json& settings) const {
  fs::path path = root_ / "fixit.json";
  Json record = Json::object();
  if (fs::exists(path)) {
    auto text = util::read_file(path);
    if (text) record = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded() || !record.is_object()) record = Json::object();
  }
  if (!record.contains("stages")) record["stages"] = Json::array();
  record["stages"].push_back(
      {{"stage", stage}, {"at", agent::utc_timestamp()}, {"settings", settings}});
  util::write_file_atomic(path, record.dump(2) + "\n");
}

}  // namespace ptxbench::fixit
