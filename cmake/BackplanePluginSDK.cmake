# backplane_add_plugin(): builds a Backplane plugin the way the runtime expects it.
# Installed with the BackplanePluginSDK package (find_package(BackplanePluginSDK)).
#
#   backplane_add_plugin(NAME <name> SOURCES <src>...
#                        [INSTALL_DESTINATION <dir>] [NO_INSTALL])
#
# makes the target backplane_plugin_<name>:
#   - a MODULE library (dlopen-ed, never linked against) named libbackplane_plugin_<name>.so,
#     the file name plugin discovery looks for;
#   - C++20, hidden visibility: the only exported symbol is bp_plugin_query (BP_EXPORT), so
#     two plugins never see each other's internals;
#   - linked to Backplane::sdk (headers only): a plugin links nothing of the runtime;
#   - installed into <prefix>/<libdir>/backplane/plugins (or INSTALL_DESTINATION, relative
#     to the install prefix), the folder a runtime installed in the same prefix searches.
# Add the plugin's own dependencies with target_link_libraries(backplane_plugin_<name> ...).
include_guard(GLOBAL)
include(GNUInstallDirs)

function(backplane_add_plugin)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "NO_INSTALL" "NAME;INSTALL_DESTINATION" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "backplane_add_plugin: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # The name becomes a file name and a target name; the backend name registered at run
  # time is the plugin's own business, but keeping them equal avoids confusion.
  if(NOT ARG_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "backplane_add_plugin: NAME '${ARG_NAME}' must match [a-z][a-z0-9_]*")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "backplane_add_plugin(NAME ${ARG_NAME}): SOURCES is empty")
  endif()

  set(target backplane_plugin_${ARG_NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Backplane::sdk)
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME backplane_plugin_${ARG_NAME}
    CXX_EXTENSIONS OFF
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)

  if(NOT ARG_NO_INSTALL)
    if(NOT ARG_INSTALL_DESTINATION)
      set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/backplane/plugins)
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
  endif()
endfunction()
