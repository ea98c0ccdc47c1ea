// A candidate's shared object, loaded in an untrusted worker process. Its entry point is the
// TVM-FFI export `__tvm_ffi_run` (destination passing: inputs, then preallocated outputs); it
// is called with DLTensor arguments on the stream the worker chooses, which is published as
// TVM-FFI's current CUDA stream for the call (candidates read it with TVMFFIEnvGetStream).
// Invariant: a constructed CandidateLibrary holds an open handle and a non-null entry point.
#pragma once
#include <cuda_runtime.h>
#include <dlpack/dlpack.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::gpu {

class CandidateLibrary {
 public:
  // dlopen (RTLD_NOW | RTLD_LOCAL) and look up `__tvm_ffi_run`; a missing file, unresolved
  // symbol or missing export is an Error value (the candidate's fault).
  static util::Expected<CandidateLibrary> open(const std::filesystem::path& path);

  CandidateLibrary(CandidateLibrary&& other) noexcept;
  CandidateLibrary& operator=(CandidateLibrary&& other) noexcept;
  CandidateLibrary(const CandidateLibrary&) = delete;
  CandidateLibrary& operator=(const CandidateLibrary&) = delete;
  ~CandidateLibrary();

  // run(arguments...) with `stream` as the current stream of the arguments' CUDA device.
  // Returns the FFI error ("<kind>: <message>") when run() raised or returned non-zero, nullopt
  // on success. Asynchronous: kernels may still be running when it returns.
  std::optional<util::Error> call(std::span<DLTensor* const> arguments, cudaStream_t stream) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  using SafeCall = int (*)(void*, const void*, int, void*);  // TVMFFISafeCallType
  CandidateLibrary(void* handle, SafeCall entry, std::filesystem::path path)
      : handle_(handle), entry_(entry), path_(std::move(path)) {}

  void* handle_ = nullptr;
  SafeCall entry_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace ptxbench::eval::gpu
