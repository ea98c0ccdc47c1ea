// Content hashes for cache keys and records (not for security): 64-bit FNV-1a, as 16 hex digits.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ptxbench::util {

class Fnv1a64 {
 public:
  Fnv1a64& add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= 0x100000001b3ULL;
    }
    // Separator so that ("ab","c") and ("a","bc") differ.
    state_ ^= 0xff;
    state_ *= 0x100000001b3ULL;
    return *this;
  }
  std::uint64_t value() const { return state_; }
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

inline std::string hash_hex(std::string_view bytes) {
  return Fnv1a64().add(bytes).hex();
}

}  // namespace ptxbench::util
