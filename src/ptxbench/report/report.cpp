#include "ptxbench/report/report.hpp"

namespace ptxbench::report {

util::Expected<ReportPaths> write_report(const std::vector<std::filesystem::path>& /*run_dirs*/,
                                         const ReportOptions& /*options*/) {
  return util::make_error("the report is not available in this build yet");
}

}  // namespace ptxbench::report
