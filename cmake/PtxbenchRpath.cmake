# The run path of executables that load libtvm_ffi.so (the worker, the GPU tests): TVM-FFI's
# folder relative to the executable ($ORIGIN), so a built tree copied elsewhere with the source
# tree beside it (docs/running.md, "Carrying a build") finds it as is; the CUDA libraries come
# from the toolkit's own folders, which are the machine's, not the tree's.
function(ptxbench_relocatable_rpath target)
  get_target_property(binary_dir ${target} BINARY_DIR)
  file(RELATIVE_PATH tvm_ffi ${binary_dir} ${TVM_FFI_LIBRARY_DIR})
  set(rpath "\$ORIGIN/${tvm_ffi}")
  foreach(library CUDA::cudart CUDA::cublasLt CUDA::cupti CUDA::nvrtc)
    if(TARGET ${library})
      get_target_property(location ${library} IMPORTED_LOCATION)
      if(location)
        get_filename_component(folder ${location} DIRECTORY)
        if(NOT folder IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND NOT folder MATCHES "/stubs$")
          list(APPEND rpath ${folder})
        endif()
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES rpath)
  set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${rpath}")
endfunction()
