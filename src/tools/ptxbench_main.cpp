// The ptxbench command line: a thin shell over the library (src/ptxbench/cli/). SIGTERM and
// SIGINT end every child process and return through the normal path (temporary folders go).
#include "ptxbench/cli/app.hpp"
#include "ptxbench/util/termination.hpp"

int main(int argc, char** argv) {
  const ptxbench::util::TerminationWatch watch;
  return ptxbench::cli::run_app(argc, argv);
}
