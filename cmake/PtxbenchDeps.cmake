# Third-party dependencies. Debian packages are found the usual way; PyPI wheels live in
# .deps/python (scripts/setup.sh). On a machine without network (the GPU machine) point
# CMAKE_PREFIX_PATH / PTXBENCH_PYDEPS at carried copies (scripts/pack-device-deps.sh).
set(PTXBENCH_PYDEPS "${CMAKE_CURRENT_SOURCE_DIR}/.deps/python" CACHE PATH "PyPI wheels' contents")

find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt 9 REQUIRED)
find_package(CURL REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Threads REQUIRED)
find_path(HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)

# TVM-FFI: headers and libtvm_ffi.so from the apache-tvm-ffi wheel.
find_path(TVM_FFI_INCLUDE_DIR tvm/ffi/function.h REQUIRED
          HINTS "${PTXBENCH_PYDEPS}/tvm_ffi/include" NO_DEFAULT_PATH)
find_library(TVM_FFI_LIBRARY tvm_ffi REQUIRED HINTS "${PTXBENCH_PYDEPS}/tvm_ffi/lib" NO_DEFAULT_PATH)
get_filename_component(TVM_FFI_LIBRARY_DIR "${TVM_FFI_LIBRARY}" DIRECTORY)
add_library(ptxbench::tvm_ffi SHARED IMPORTED)
set_target_properties(ptxbench::tvm_ffi PROPERTIES IMPORTED_LOCATION "${TVM_FFI_LIBRARY}"
                      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${TVM_FFI_INCLUDE_DIR}")

# cudnn-frontend: header-only, from the nvidia-cudnn-frontend wheel.
find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
          HINTS "${PTXBENCH_PYDEPS}/include" NO_DEFAULT_PATH)

# Disassemblers from the nvidia-cuda-cuobjdump / -nvdisasm wheels (a toolkit's own are used when
# these are absent).
set(PTXBENCH_PYDEPS_BIN "${PTXBENCH_PYDEPS}/nvidia/cu13/bin")

if(PTXBENCH_ENABLE_GPU)
  find_package(CUDAToolkit 13 REQUIRED)
else()
  find_package(CUDAToolkit QUIET)  # candidates are compiled with it all the same
endif()

# libseccomp (Debian libseccomp-dev): the sandbox's system-call filter. Without it the sandbox
# reports the layer missing ("partial: no seccomp filter"), and strict mode refuses to run.
find_path(SECCOMP_INCLUDE_DIR seccomp.h)
find_library(SECCOMP_LIBRARY seccomp)
