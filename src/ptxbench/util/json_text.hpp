// The one way ptxbench writes JSON files: strings that are not valid UTF-8 (a reply with raw
// bytes, a compiler line cut inside a character) are kept losslessly instead of making the
// writer throw. docs/trajectory-format.md ("Bytes that are not UTF-8") describes the layout:
// an object member "k" whose bytes are not UTF-8 is written as valid text (U+FFFD for each bad
// byte) and the exact bytes go to a sibling "k_base64". Strings inside arrays and object keys
// keep only the valid text.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace ptxbench::util {

inline constexpr std::string_view kBytesSuffix = "_base64";

// A copy whose strings are all valid UTF-8, with "_base64" siblings for lossy members.
nlohmann::json with_valid_text(const nlohmann::json& json);
// The inverse: every "k" with a "k_base64" sibling gets its exact bytes back; the siblings go.
void restore_bytes(nlohmann::json& json);

// with_valid_text(json).dump(indent); never throws on string content.
std::string dump_json(const nlohmann::json& json, int indent = -1);

}  // namespace ptxbench::util
