# ptxbench_loopback_http: what a test's loopback HTTP server (cpp-httplib) links. Debian ships
# cpp-httplib as a compiled library whose header must see the feature macros it was built with;
# pkg-config says which, and without pkg-config these are Debian 12's.
if(NOT TARGET ptxbench_loopback_http)
  add_library(ptxbench_loopback_http INTERFACE)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(CPP_HTTPLIB QUIET IMPORTED_TARGET GLOBAL cpp-httplib)
  endif()
  if(TARGET PkgConfig::CPP_HTTPLIB)
    target_link_libraries(ptxbench_loopback_http INTERFACE PkgConfig::CPP_HTTPLIB)
  else()
    find_library(CPP_HTTPLIB_LIBRARY cpp-httplib REQUIRED)
    target_link_libraries(ptxbench_loopback_http INTERFACE ${CPP_HTTPLIB_LIBRARY})
    target_compile_definitions(ptxbench_loopback_http INTERFACE CPPHTTPLIB_OPENSSL_SUPPORT
                               CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT)
  endif()
endif()
