# backplane_add_plugin(): builds a Backplane plugin the way the runtime expects it.
# Installed with the BackplanePluginSDK package (find_package(BackplanePluginSDK)).
#
#   backplane_add_plugin(NAME <name> SOURCES <src>...
#                        [INSTALL_DESTINATION <dir>] [NO_INSTALL] [OUTPUT_DIRECTORY <dir>]
#                        [STATIC_LIBRARY <target> [MODULE_SOURCES <src>...]])
#
# makes the target backplane_plugin_<name>:
#   - a MODULE library (dlopen-ed, never linked against) named libbackplane_plugin_<name>.so,
#     the file name plugin discovery looks for;
#   - C++20, hidden visibility: the only exported symbol is bp_plugin_query (BP_EXPORT), so
#     two plugins never see each other's internals;
#   - linked to Backplane::sdk (headers only): a plugin links nothing of the runtime;
#   - installed into <prefix>/<libdir>/backplane/plugins (or INSTALL_DESTINATION, relative
#     to the install prefix), the folder a runtime installed in the same prefix searches.
# OUTPUT_DIRECTORY is the build folder the module is written to (the default is CMake's).
# STATIC_LIBRARY also builds the plugin as a static library <target>, for a runtime that
# links a plugin in and reaches it through its descriptor (Backplane's reference backend):
# SOURCES then compile once, into the OBJECT library backplane_plugin_<name>_objects that
# both forms are made of, and MODULE_SOURCES go into the module alone (the file that
# exports bp_plugin_query, which a linked-in plugin must not).
# Add the plugin's own dependencies with target_link_libraries(backplane_plugin_<name> ...),
# and with STATIC_LIBRARY the compile-time ones (headers, flags) to the _objects library.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(backplane_add_plugin)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "NO_INSTALL"
                        "NAME;INSTALL_DESTINATION;OUTPUT_DIRECTORY;STATIC_LIBRARY"
                        "SOURCES;MODULE_SOURCES")
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
  if(ARG_MODULE_SOURCES AND NOT ARG_STATIC_LIBRARY)
    message(FATAL_ERROR "backplane_add_plugin(NAME ${ARG_NAME}): MODULE_SOURCES needs STATIC_LIBRARY")
  endif()

  set(target backplane_plugin_${ARG_NAME})
  if(ARG_STATIC_LIBRARY)
    # Objects rather than linking the OBJECT library: an installed static library must not
    # name a target outside its export set.
    add_library(${target}_objects OBJECT ${ARG_SOURCES})
    add_library(${target} MODULE ${ARG_MODULE_SOURCES} $<TARGET_OBJECTS:${target}_objects>)
    add_library(${ARG_STATIC_LIBRARY} STATIC $<TARGET_OBJECTS:${target}_objects>)
    set(targets ${target}_objects ${target} ${ARG_STATIC_LIBRARY})
  else()
    add_library(${target} MODULE ${ARG_SOURCES})
    set(targets ${target})
  endif()
  foreach(t IN LISTS targets)
    target_link_libraries(${t} PRIVATE Backplane::sdk)
    target_compile_features(${t} PRIVATE cxx_std_20)
    set_target_properties(${t} PROPERTIES
      CXX_EXTENSIONS OFF
      C_VISIBILITY_PRESET hidden
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON
      POSITION_INDEPENDENT_CODE ON)
  endforeach()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME backplane_plugin_${ARG_NAME})
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()

  if(NOT ARG_NO_INSTALL)
    if(NOT ARG_INSTALL_DESTINATION)
      set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/backplane/plugins)
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
  endif()
endfunction()
