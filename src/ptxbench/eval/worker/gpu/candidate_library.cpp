#include "ptxbench/eval/worker/gpu/candidate_library.hpp"

#include <dlfcn.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <string>
#include <utility>
#include <vector>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"

namespace ptxbench::eval::gpu {
namespace {

std::string byte_array_text(const TVMFFIByteArray& bytes) {
  return bytes.data == nullptr ? std::string() : std::string(bytes.data, bytes.size);
}

// The error raised by the last failing FFI call of this thread, as "<kind>: <message>".
std::string take_raised_error() {
  TVMFFIObjectHandle raised = nullptr;
  TVMFFIErrorMoveFromRaised(&raised);
  if (raised == nullptr) return "run() failed without raising an error";
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(raised);
  std::string text = byte_array_text(cell->kind) + ": " + byte_array_text(cell->message);
  TVMFFIObjectDecRef(raised);
  return text;
}

// Publishes `stream` as TVM-FFI's current stream for one device and restores the previous one.
class CurrentStreamScope {
 public:
  CurrentStreamScope(int device_id, cudaStream_t stream) : device_id_(device_id) {
    PTXBENCH_CHECK(TVMFFIEnvSetStream(kDLCUDA, device_id_, stream, &previous_) == 0,
                   "TVMFFIEnvSetStream failed");
  }
  CurrentStreamScope(const CurrentStreamScope&) = delete;
  CurrentStreamScope& operator=(const CurrentStreamScope&) = delete;
  ~CurrentStreamScope() { TVMFFIEnvSetStream(kDLCUDA, device_id_, previous_, nullptr); }

 private:
  int device_id_;
  TVMFFIStreamHandle previous_ = nullptr;
};

}  // namespace

util::Expected<CandidateLibrary> CandidateLibrary::open(const std::filesystem::path& path) {
  ::dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return util::make_error("cannot load " + path.string() + ": " + (why ? why : "dlopen failed"));
  }
  void* symbol = ::dlsym(handle, "__tvm_ffi_run");
  if (symbol == nullptr) {
    ::dlclose(handle);
    return util::make_error(path.filename().string() +
                            " exports no __tvm_ffi_run (TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, ...))");
  }
  return CandidateLibrary(handle, reinterpret_cast<SafeCall>(symbol), path);
}

CandidateLibrary::CandidateLibrary(CandidateLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)),
      path_(std::move(other.path_)) {}

CandidateLibrary& CandidateLibrary::operator=(CandidateLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) ::dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

CandidateLibrary::~CandidateLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::optional<util::Error> CandidateLibrary::call(std::span<DLTensor* const> arguments,
                                                  cudaStream_t stream) const {
  PTXBENCH_CHECK(entry_ != nullptr, "call on a moved-from CandidateLibrary");
  std::vector<TVMFFIAny> args(arguments.size());
  int device_id = 0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    args[i].type_index = kTVMFFIDLTensorPtr;
    args[i].zero_padding = 0;
    args[i].v_ptr = arguments[i];
    if (i == 0) device_id = arguments[i]->device.device_id;
  }
  TVMFFIAny result{};
  result.type_index = kTVMFFINone;
  int status = 0;
  {
    CurrentStreamScope scope(device_id, stream);
    auto entry = reinterpret_cast<TVMFFISafeCallType>(entry_);
    status = entry(nullptr, args.data(), static_cast<std::int32_t>(args.size()), &result);
  }
  if (status != 0) return util::make_error(take_raised_error());
  if (result.type_index >= kTVMFFIStaticObjectBegin && result.v_obj != nullptr) {
    TVMFFIObjectDecRef(result.v_obj);  // run() returns nothing by convention; drop what it did
  }
  return std::nullopt;
}

}  // namespace ptxbench::eval::gpu
