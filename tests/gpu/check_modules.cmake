# ctest plugins/cuda_kernel_modules, plugins/rocm_kernel_modules: every kernel module a GPU plugin's
# build should have made (one per program of plugins/shared/opencl-c-kernels and dtype variant)
# exists and holds every kernel its OpenCL C program defines for that variant, so a kernel that the
# dialect header (plugins/shared/cuda-hip-backend/cl_dialect.h) lost would be caught here rather
# than at a launch on a GPU. The names come from the program run through the preprocessor with the
# variant's defines; the module's symbol names are plain strings in its ELF images. cmake -DCPP=<C
# compiler> -DPRELUDE=<prelude.h> -DPROGRAMS=<a;b> -DVARIANTS=<f32;...> -DDIR=<module folder>
# -DEXT=<.fatbin|.hsaco> -P check_modules.cmake
set(problems "")
set(checked 0)
foreach(program ${PROGRAMS})
  get_filename_component(name ${program} NAME_WE)
  foreach(variant ${VARIANTS})
    string(TOUPPER ${variant} upper)
    set(module ${DIR}/${name}.${variant}${EXT})
    if(NOT EXISTS ${module})
      string(APPEND problems "missing: ${module}\n")
      continue()
    endif()
    execute_process(COMMAND ${CPP} -E -P -x c -include ${PRELUDE} -DBP_VARIANT_${upper}
                            -DBP_HAS_FP64 ${program}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      string(APPEND problems "preprocessing ${program} for ${variant} failed:\n${err}\n")
      continue()
    endif()
    string(REGEX MATCHALL "__kernel void [A-Za-z_0-9]+" kernels "${text}")
    file(STRINGS ${module} symbols LENGTH_MINIMUM 2)
    string(JOIN "\n" symbols ${symbols})
    foreach(kernel ${kernels})
      string(REPLACE "__kernel void " "" kernel "${kernel}")
      string(FIND "${symbols}" "${kernel}" at)
      if(at EQUAL -1)
        string(APPEND problems "${module} lacks kernel ${kernel}\n")
      endif()
      math(EXPR checked "${checked} + 1")
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
message(STATUS "${checked} kernels present in the modules of ${DIR}")
