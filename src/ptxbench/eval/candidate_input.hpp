// A candidate as a command hands it over: text, and whether it is a model's reply or a source.
#pragma once
#include <string>

namespace ptxbench::eval {

struct CandidateInput {
  std::string text;         // a .cu file's content or a model response (Markdown)
  bool is_markdown = true;  // true: extract the last fenced block; false: take text whole
  std::string source_name;  // for the record ("reply.md", "turn 3")
};

}  // namespace ptxbench::eval
