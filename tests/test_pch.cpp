// The translation unit that CMake builds the tests' precompiled headers from
// (tests/CMakeLists.txt); it defines nothing.
