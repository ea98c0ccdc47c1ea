# One warnings target linked into every ptxbench target: warnings are errors.
add_library(ptxbench_warnings INTERFACE)
target_compile_options(ptxbench_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough -Werror
    # Designated initialisers name only the fields that differ from their defaults.
    -Wno-missing-field-initializers>)
