// main() of the test executables that ctest runs as one process (ONE_PROCESS suites and the GPU
// tests registered without discovery). GoogleTest exits 0 when every case it did not fail was
// skipped, so ctest would say "Passed" for a suite that checked nothing. Here a run with a
// skipped case and no failure exits kSkipReturnCode, which the test's SKIP_RETURN_CODE property
// turns into ctest's "Skipped"; the skipped cases and their reasons are listed on stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int kSkipReturnCode = 77;  // the automake convention; tests/CMakeLists.txt names it too

class SkipCounter : public testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const testing::TestInfo& info) override {
    const testing::TestResult* result = info.result();
    if (result == nullptr || !result->Skipped()) return;
    std::string reason;
    for (int i = 0; i < result->total_part_count(); ++i) {
      const auto& part = result->GetTestPartResult(i);
      if (part.skipped() && part.message() != nullptr) reason = part.message();
    }
    skipped_.push_back(std::string(info.test_suite_name()) + "." + info.name() +
                       (reason.empty() ? "" : ": " + reason));
  }
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  std::vector<std::string> skipped_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  auto* counter = new SkipCounter;  // owned by the listener list
  testing::UnitTest::GetInstance()->listeners().Append(counter);
  const int status = RUN_ALL_TESTS();
  if (status != 0 || counter->skipped().empty()) return status;
  std::fprintf(stderr, "%zu case(s) did not run, so this suite is reported as skipped:\n",
               counter->skipped().size());
  for (const auto& line : counter->skipped()) std::fprintf(stderr, "  %s\n", line.c_str());
  return kSkipReturnCode;
}
