// Test candidate that loads cuBLASLt at run time with dlopen/dlsym, which no link-time check
// sees. It must be refused as FORBIDDEN because the object imports dlopen.
#include <dlfcn.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  void* library = dlopen("libcublasLt.so.13", RTLD_NOW);
  TVM_FFI_ICHECK(library != nullptr) << "cannot load cuBLASLt";
  using CreateFn = int (*)(void**);
  auto create = reinterpret_cast<CreateFn>(dlsym(library, "cublasLtCreate"));
  void* handle = nullptr;
  create(&handle);
  (void)a;
  (void)b;
  (void)c;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
