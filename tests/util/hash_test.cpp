#include "ptxbench/util/hash.hpp"

#include <gtest/gtest.h>

namespace ptxbench::util {
namespace {

TEST(Hash, StableAndSensitive) {
  EXPECT_EQ(hash_hex("abc"), hash_hex("abc"));
  EXPECT_NE(hash_hex("abc"), hash_hex("abd"));
  EXPECT_EQ(hash_hex("abc").size(), 16u);
  // Pieces are delimited: ("ab","c") differs from ("a","bc").
  EXPECT_NE(Fnv1a64().add("ab").add("c").hex(), Fnv1a64().add("a").add("bc").hex());
}

}  // namespace
}  // namespace ptxbench::util
