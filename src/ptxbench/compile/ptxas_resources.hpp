// Per-kernel resources that `ptxas -v` reports: registers, static shared memory, spills.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::compile {

struct KernelResources {
  std::string name;  // mangled entry name, as in the cubin
  int registers = 0;
  int shared_bytes = 0;  // static shared memory ("N bytes smem")
  int stack_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
};

// Entries in the order ptxas compiled them. Lines it does not recognise are ignored, so a log
// without -v output gives an empty list.
std::vector<KernelResources> parse_ptxas_resources(std::string_view log);

}  // namespace ptxbench::compile
