// Values from the command line or from input files that end up in generated files (dataset
// cards, Dockerfiles, batch scripts, YAML headers): quoted for the file's syntax where it can
// hold them, refused where it cannot (a newline in a Dockerfile line or an #SBATCH line ends the
// line and starts an instruction of its own).
#pragma once
#include <string>
#include <string_view>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

// The value when it holds no control character (newline, tab, escape, DEL ...); else
// "WHAT: "VALUE" holds a control character, which WHERE cannot hold" (VALUE JSON-escaped).
Expected<std::string> one_line(std::string_view what, std::string_view value,
                               std::string_view where);

// A double-quoted YAML scalar, written by yaml-cpp's emitter (any text survives a YAML reader).
std::string yaml_quoted(std::string_view value);

// Inline Markdown (a heading, a table cell, a list item): control characters written as their
// escapes (\n, \t, \u001b) and '|' escaped, so the value stays in its line and its cell; '<',
// '>' and '&' as HTML entities, since renderers pass HTML through (a model named <script> stays
// text).
std::string markdown_inline(std::string_view value);

// Single-quoted for bash: any text, passed through as one word.
std::string shell_quoted(std::string_view value);

}  // namespace ptxbench::util
