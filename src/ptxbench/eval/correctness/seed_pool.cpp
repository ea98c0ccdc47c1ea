#include "ptxbench/eval/correctness/seed_pool.hpp"
#include "ptxbench/eval/cache_folders.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "ptxbench/eval/correctness/input_seed.hpp"
#include "ptxbench/eval/task_fingerprint.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval::correctness {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

struct SipState {
  std::uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  void absorb(std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = (x << 8) | p[i];
  return x;
}

std::string salt_text(const std::array<std::uint64_t, 2>& salt) {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(salt[0]),
                static_cast<unsigned long long>(salt[1]));
  return text;
}

std::optional<std::array<std::uint64_t, 2>> parse_salt(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.size() != 32) return std::nullopt;
  std::array<std::uint64_t, 2> salt{};
  for (int half = 0; half < 2; ++half) {
    for (char c : text.substr(half * 16, 16)) {
      int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) return std::nullopt;
      salt[half] = (salt[half] << 4) | static_cast<std::uint64_t>(digit);
    }
  }
  return salt;
}

}  // namespace

std::uint64_t siphash24(const std::array<std::uint64_t, 2>& key, std::string_view bytes) {
  SipState s{key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
             key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t blocks = bytes.size() / 8;
  for (std::size_t i = 0; i < blocks; ++i) s.absorb(load_le64(data + i * 8));
  std::uint64_t last = static_cast<std::uint64_t>(bytes.size() & 0xff) << 56;
  for (std::size_t i = 0; i < bytes.size() % 8; ++i)
    last |= static_cast<std::uint64_t>(data[blocks * 8 + i]) << (8 * i);
  s.absorb(last);
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

std::array<std::uint64_t, 2> random_salt() {
  return {draw_input_seed(), draw_input_seed()};
}

std::filesystem::path default_salt_file() {
  return cache_root() / "seed-pool.salt";
}

std::optional<std::array<std::uint64_t, 2>> installation_salt(const std::filesystem::path& file) {
  if (auto text = util::read_file(file, 4096)) return parse_salt(*text);
  std::error_code ignored;
  std::filesystem::create_directories(file.parent_path(), ignored);
  // O_EXCL: of two processes making it at once, one writes and both read the winner's salt.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const std::string text = salt_text(random_salt()) + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) {
      std::filesystem::remove(file, ignored);
      return std::nullopt;
    }
  }
  if (auto text = util::read_file(file, 4096)) return parse_salt(*text);
  return std::nullopt;
}

SeedSource::SeedSource(std::optional<std::uint64_t> fixed, int pool_size,
                       std::array<std::uint64_t, 2> salt)
    : fixed_(fixed), pool_size_(pool_size), salt_(salt) {}

std::uint64_t SeedSource::pool_seed(const task::Task& task, int index) const {
  const std::string message = task_fingerprint(task) + '\0' + std::to_string(index);
  const std::uint64_t seed = siphash24(salt_, message);
  return seed != 0 ? seed : 1;
}

SeedChoice SeedSource::choose(const task::Task& task) const {
  if (fixed_) return {.seed = *fixed_};
  if (pool_size_ <= 0) return {.seed = draw_input_seed(), .fresh = true};
  std::random_device entropy;
  const int index = static_cast<int>(std::uniform_int_distribution<std::uint32_t>(
      0, static_cast<std::uint32_t>(pool_size_ - 1))(entropy));
  return {.seed = pool_seed(task, index), .pool_size = pool_size_, .pool_index = index};
}

}  // namespace ptxbench::eval::correctness
