// The ptxbench command line: a thin shell over the library (src/ptxbench/cli/).
#include "ptxbench/cli/app.hpp"

int main(int argc, char** argv) { return ptxbench::cli::run_app(argc, argv); }
