// UTF-8 text from arbitrary bytes. Replies, error pages and compiler output are bytes; JSON and
// most terminals want valid UTF-8. These functions never throw and never split a character.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ptxbench::util {

bool is_valid_utf8(std::string_view bytes);

// The bytes with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD.
std::string valid_utf8(std::string_view bytes);

// The longest prefix of at most max_bytes that does not end inside a multi-byte character
// (invalid bytes count as single characters).
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);
// The same at the end: the longest suffix of at most max_bytes starting on a character.
std::string_view utf8_suffix(std::string_view text, std::size_t max_bytes);

std::string base64_encode(std::string_view bytes);
// Bytes, or the empty string when `text` is not base64.
std::string base64_decode(std::string_view text);

}  // namespace ptxbench::util
