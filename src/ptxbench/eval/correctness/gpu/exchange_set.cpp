#include "ptxbench/eval/correctness/gpu/exchange_set.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <fmt/format.h>

#include <utility>

#include "ptxbench/eval/worker/gpu/cuda_check.hpp"

namespace ptxbench::eval::gpu {
namespace {

using correctness::ExchangeKind;

CUmemAllocationProp allocation_properties(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// A driver call's failure as an Error naming the call.
util::Expected<bool> driver(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return true;
  return util::make_error(fmt::format("{}: {}", what, cu_error_text(result)));
}

int current_device() {
  int device = 0;
  PTXBENCH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

}  // namespace

ExchangeSet::ExchangeSet(ExchangeSet&& other) noexcept
    : kind_(other.kind_),
      bytes_(std::exchange(other.bytes_, 0)),
      fd_(std::exchange(other.fd_, -1)),
      handle_(std::exchange(other.handle_, 0)),
      address_(std::exchange(other.address_, 0)),
      mapped_(std::exchange(other.mapped_, false)),
      memory_(std::move(other.memory_)),
      registered_(std::exchange(other.registered_, false)) {}

ExchangeSet& ExchangeSet::operator=(ExchangeSet&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    bytes_ = std::exchange(other.bytes_, 0);
    fd_ = std::exchange(other.fd_, -1);
    handle_ = std::exchange(other.handle_, 0);
    address_ = std::exchange(other.address_, 0);
    mapped_ = std::exchange(other.mapped_, false);
    memory_ = std::move(other.memory_);
    registered_ = std::exchange(other.registered_, false);
  }
  return *this;
}

ExchangeSet::~ExchangeSet() {
  release();
}

void ExchangeSet::release() noexcept {
  if (mapped_) {
    (void)cuMemUnmap(static_cast<CUdeviceptr>(address_), bytes_);
    mapped_ = false;
  }
  if (address_ != 0) {
    (void)cuMemAddressFree(static_cast<CUdeviceptr>(address_), bytes_);
    address_ = 0;
  }
  if (handle_ != 0) {
    (void)cuMemRelease(static_cast<CUmemGenericAllocationHandle>(handle_));
    handle_ = 0;
  }
  if (registered_) {
    (void)cudaHostUnregister(memory_.data());
    registered_ = false;
  }
  memory_ = worker::SharedMemory();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

util::Expected<ExchangeSet> ExchangeSet::create(ExchangeKind kind, std::size_t bytes) {
  ExchangeSet set;
  set.kind_ = kind;
  if (kind == ExchangeKind::kHost) {
    auto memory = worker::SharedMemory::create(bytes);
    if (!memory) return memory.error();
    set.bytes_ = bytes;
    set.memory_ = std::move(*memory);
    set.fd_ = ::dup(set.memory_.fd());  // the set's own descriptor to hand over
    // Pinned, so the judge's copies to and from it run at the bus's speed.
    if (cudaHostRegister(set.memory_.data(), bytes, cudaHostRegisterDefault) == cudaSuccess)
      set.registered_ = true;
    else
      (void)cudaGetLastError();
    return util::Expected<ExchangeSet>(std::move(set));
  }
  const CUmemAllocationProp prop = allocation_properties(current_device());
  std::size_t granularity = 0;
  auto ok =
      driver(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
             "cuMemGetAllocationGranularity");
  if (!ok) return ok.error();
  set.bytes_ = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  if (ok = driver(cuMemCreate(&handle, set.bytes_, &prop, 0), "cuMemCreate"); !ok)
    return ok.error();
  set.handle_ = handle;
  int fd = -1;
  if (ok = driver(
          cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          "cuMemExportToShareableHandle");
      !ok)
    return ok.error();
  set.fd_ = fd;
  CUdeviceptr address = 0;
  if (ok = driver(cuMemAddressReserve(&address, set.bytes_, 0, 0, 0), "cuMemAddressReserve"); !ok)
    return ok.error();
  set.address_ = static_cast<std::uintptr_t>(address);
  if (ok = driver(cuMemMap(address, set.bytes_, 0, handle, 0), "cuMemMap"); !ok) return ok.error();
  set.mapped_ = true;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (ok = driver(cuMemSetAccess(address, set.bytes_, &access, 1), "cuMemSetAccess"); !ok)
    return ok.error();
  return util::Expected<ExchangeSet>(std::move(set));
}

util::Expected<ExchangeSet> ExchangeSet::import(ExchangeKind kind, int fd, std::size_t bytes) {
  ExchangeSet set;
  set.kind_ = kind;
  set.bytes_ = bytes;
  if (kind == ExchangeKind::kHost) {
    auto memory = worker::SharedMemory::map(fd, bytes);
    if (!memory) return memory.error();
    set.memory_ = std::move(*memory);
    if (cudaHostRegister(set.memory_.data(), bytes, cudaHostRegisterDefault) == cudaSuccess)
      set.registered_ = true;
    else
      (void)cudaGetLastError();
    return util::Expected<ExchangeSet>(std::move(set));
  }
  CUmemGenericAllocationHandle handle = 0;
  auto ok = driver(cuMemImportFromShareableHandle(
                       &handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                   "cuMemImportFromShareableHandle");
  if (!ok) return ok.error();
  set.handle_ = handle;
  CUdeviceptr address = 0;
  if (ok = driver(cuMemAddressReserve(&address, bytes, 0, 0, 0), "cuMemAddressReserve"); !ok)
    return ok.error();
  set.address_ = static_cast<std::uintptr_t>(address);
  if (ok = driver(cuMemMap(address, bytes, 0, handle, 0), "cuMemMap"); !ok) return ok.error();
  set.mapped_ = true;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = current_device();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (ok = driver(cuMemSetAccess(address, bytes, &access, 1), "cuMemSetAccess"); !ok)
    return ok.error();
  return util::Expected<ExchangeSet>(std::move(set));
}

void* ExchangeSet::device(std::uint64_t offset) const {
  if (kind_ != ExchangeKind::kDevice || address_ == 0) return nullptr;
  return reinterpret_cast<void*>(address_ + offset);
}

std::byte* ExchangeSet::host(std::uint64_t offset) const {
  if (kind_ != ExchangeKind::kHost || memory_.data() == nullptr) return nullptr;
  return memory_.data() + offset;
}

}  // namespace ptxbench::eval::gpu
