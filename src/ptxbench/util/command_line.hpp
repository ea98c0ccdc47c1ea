// A command line as a user writes it in a shell (`python3 "my teacher.py" --model x`), read into
// the argv of a program. Words are split the way POSIX sh splits them and quotes are removed
// (Python's shlex.split does the same); nothing is expanded and no shell runs, so `$HOME`, `~`
// and `*` reach the program as written. A shell's operators (`|`, `;`, `&`, `<`, `>`, `(`, `)`,
// a backquote) outside quotes are refused: the line names one program, and a pipeline or a
// redirection given here would silently become arguments.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::util {

// Blanks (space, tab, newline) separate words. 'single quotes' keep every character; "double
// quotes" keep every character but \" \\ \$ \` (and a backslash-newline, which is dropped); a
// backslash outside quotes keeps the next character. An empty or all-blank line is no word.
// Error: an unterminated quote, a trailing backslash, or an operator outside quotes.
Expected<std::vector<std::string>> split_command_line(std::string_view line);

}  // namespace ptxbench::util
