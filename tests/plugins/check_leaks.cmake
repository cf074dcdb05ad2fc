# The leak-check test (issue 9): runs tests/plugins/leak_check_driver under valgrind's
# memcheck with one plugin and checks what the leak checker says.
#   -DVALGRIND=<valgrind> -DDRIVER=<leak_check_driver> -DPLUGIN=<plugin .so>
#   -DEXPECT=<function,function...>  the functions the report must name as allocating
#     definitely lost memory (the leaking plugin), or empty for "no definite leak at all"
#     (the control: the same plugin without its leaks, which shows that the runtime
#     itself leaks nothing and that a leak found is the plugin's).
# Only definite leaks count (--errors-for-leak-kinds=definite): memory still reachable at
# exit (the runtime's singletons, the plugin libraries it keeps open) is not a leak.
foreach(var VALGRIND DRIVER PLUGIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_leaks.cmake: -D${var}=... is required")
  endif()
endforeach()
set(leak_exit 99)
execute_process(
  COMMAND ${VALGRIND} --tool=memcheck --leak-check=full --show-leak-kinds=definite
          --errors-for-leak-kinds=definite --error-exitcode=${leak_exit} --num-callers=30
          ${DRIVER} ${PLUGIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc MATCHES "^(0|${leak_exit})$")
  message(FATAL_ERROR "the driver failed (exit ${rc}) before the leak check could say anything")
endif()
if(NOT out MATCHES "leak_check_driver: loaded, used and unregistered")
  message(FATAL_ERROR "the driver did not load, use and unregister the plugin")
endif()
string(REPLACE "," ";" EXPECT "${EXPECT}")
if(EXPECT)
  if(NOT rc EQUAL leak_exit)
    message(FATAL_ERROR "valgrind found no definite leak in a plugin that leaks (exit ${rc})")
  endif()
  # Each expected function must appear in the stack of a "definitely lost" record.
  string(REGEX MATCHALL "definitely lost in [^\n]*\n(==[0-9]+==    (at|by) [^\n]*\n)+" records
         "${err}")
  foreach(fn ${EXPECT})
    set(found FALSE)
    foreach(record ${records})
      if(record MATCHES "[ :]${fn} \\(")
        set(found TRUE)
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "no definite-leak record names ${fn}")
    endif()
  endforeach()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "valgrind reports a definite leak where none is expected")
endif()
