#include "ptxbench/util/utf8.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace ptxbench::util {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the well-formed sequence starting at text[at], or 0 when the byte there starts none.
std::size_t sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong
    if (lead == 0xED) second_max = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong
    if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(1) < second_min || byte(1) > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (!is_continuation(byte(i))) return 0;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t length = sequence_length(bytes, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t length = sequence_length(bytes, at);
    if (length == 0) {
      out += kReplacement;
      ++at;
    } else {
      out.append(bytes.substr(at, length));
      at += length;
    }
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = std::max<std::size_t>(sequence_length(text, at), 1);
    if (at + length > max_bytes) break;
    at += length;
    end = at;
  }
  return text.substr(0, end);
}

std::string_view utf8_suffix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t begin = text.size() - max_bytes;
  // Step over continuation bytes (at most three) that belong to a character cut by the start.
  for (int i = 0; i < 3 && begin < text.size(); ++i) {
    if (!is_continuation(static_cast<unsigned char>(text[begin]))) break;
    ++begin;
  }
  return text.substr(begin);
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64Alphabet[(chunk >> 18) & 63];
    out += kBase64Alphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Alphabet[chunk & 63] : '=';
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    value[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int>(i);
  }
  if (text.size() % 4 != 0) return {};
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t chunk = 0;
    int padding = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
        chunk <<= 6;
        continue;
      }
      const int v = value[static_cast<unsigned char>(c)];
      if (v < 0 || padding > 0) return {};
      chunk = (chunk << 6) | static_cast<std::uint32_t>(v);
    }
    out += static_cast<char>((chunk >> 16) & 0xFF);
    if (padding < 2) out += static_cast<char>((chunk >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(chunk & 0xFF);
  }
  return out;
}

}  // namespace ptxbench::util
