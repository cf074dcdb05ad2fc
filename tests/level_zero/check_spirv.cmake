# ctest plugins/level_zero_spirv: every SPIR-V module the Level Zero plugin's build should
# have made (one per program, variant and fp64 flavour; the list is written at configure
# time) exists and passes spirv-val.
#   cmake -DSPIRV_VAL=<spirv-val> -DLIST=<file, one path a line> -DEXPECTED_COUNT=<n> -P ...
file(STRINGS ${LIST} files)
list(LENGTH files count)
if(NOT count EQUAL EXPECTED_COUNT)
  message(FATAL_ERROR "expected ${EXPECTED_COUNT} SPIR-V modules (programs x (2 x variants - 1)), "
                      "the build lists ${count}")
endif()
set(problems "")
foreach(file ${files})
  if(NOT EXISTS ${file})
    string(APPEND problems "missing: ${file}\n")
    continue()
  endif()
  execute_process(COMMAND ${SPIRV_VAL} --target-env opencl1.2 ${file}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(APPEND problems "invalid: ${file}\n${out}\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
message(STATUS "${count} SPIR-V modules present and valid")
