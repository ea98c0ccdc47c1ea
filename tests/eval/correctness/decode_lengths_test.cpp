// The valid lengths of a decode task's batch from their draw: sequence 0 full, the others spread
// over [1, S] by the drawn integer, every one inside the cache whatever was drawn.
#include "ptxbench/eval/correctness/decode_lengths.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ptxbench::eval::correctness {
namespace {

TEST(DecodeLengths, SequenceZeroIsFullAndTheOthersSpanOneToTheCapacity) {
  EXPECT_EQ(kv_length_from_draw(-100, 0, 32768), 32768);
  EXPECT_EQ(kv_length_from_draw(37, 0, 32768), 32768);
  EXPECT_EQ(kv_length_from_draw(-100, 1, 32768), 1);
  EXPECT_EQ(kv_length_from_draw(100, 1, 32768), 32768);
  EXPECT_EQ(kv_length_from_draw(0, 5, 32768), 1 + 100 * 32767 / 200);
}

TEST(DecodeLengths, DrawsOutsideTheirRangeStayInsideTheCache) {
  for (int drawn : {-1000, -101, 101, 2147483647, -2147483647}) {
    const auto length = kv_length_from_draw(drawn, 3, 1024);
    EXPECT_GE(length, 1) << drawn;
    EXPECT_LE(length, 1024) << drawn;
  }
  EXPECT_EQ(kv_length_from_draw(55, 0, 1), 1);
  EXPECT_EQ(kv_length_from_draw(55, 7, 0), 1);  // a degenerate cache still gets one key
}

// The lengths of a batch differ and are mostly not multiples of a 64-key tile.
TEST(DecodeLengths, ABatchGetsDifferentRaggedLengths) {
  std::set<int> lengths;
  int multiples_of_64 = 0;
  for (int drawn = -100; drawn <= 100; drawn += 7) {
    const int length = kv_length_from_draw(drawn, 1, 32768);
    lengths.insert(length);
    multiples_of_64 += length % 64 == 0 ? 1 : 0;
  }
  EXPECT_EQ(lengths.size(), 29u);
  EXPECT_LE(multiples_of_64, 2);
}

}  // namespace
}  // namespace ptxbench::eval::correctness
