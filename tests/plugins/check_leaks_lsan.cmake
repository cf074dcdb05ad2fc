# The leak-check test of a sanitizer build (issue 9): runs tests/plugins/leak_check_driver,
# built with AddressSanitizer, with one plugin; LeakSanitizer checks the process at exit
# (ASAN_OPTIONS/LSAN_OPTIONS come from the test preset). The valgrind twin is
# check_leaks.cmake, for builds without sanitizers.
#   -DDRIVER=<leak_check_driver> -DPLUGIN=<plugin .so>
#   -DEXPECT=<function,function...>  the functions whose allocations LeakSanitizer must
#     report as leaked (the leaking plugin), or empty for "no leak at all" (the control).
foreach(var DRIVER PLUGIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_leaks_lsan.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${DRIVER} ${PLUGIN}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT out MATCHES "leak_check_driver: loaded, used and unregistered")
  message(FATAL_ERROR "the driver did not load, use and unregister the plugin (exit ${rc})")
endif()
string(REPLACE "," ";" EXPECT "${EXPECT}")
if(EXPECT)
  if(rc EQUAL 0 OR NOT err MATCHES "ERROR: LeakSanitizer: detected memory leaks")
    message(FATAL_ERROR "LeakSanitizer found no leak in a plugin that leaks (exit ${rc})")
  endif()
  # Each expected function must appear as a frame of a leak's allocation stack.
  foreach(fn ${EXPECT})
    if(NOT err MATCHES "#[0-9]+ 0x[0-9a-f]+ in ${fn} ")
      message(FATAL_ERROR "no leak report names ${fn}")
    endif()
  endforeach()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the driver failed or LeakSanitizer reports a leak where none is expected (exit ${rc})")
endif()
