# backplane_add_plugin(): builds a Backplane plugin the way the runtime expects it.
# Installed with the BackplanePluginSDK package (find_package(BackplanePluginSDK)).
#
#   backplane_add_plugin(NAME <name> SOURCES <src>...
#                        [INSTALL_DESTINATION <dir>] [NO_INSTALL] [OUTPUT_DIRECTORY <dir>]
#                        [STATIC_LIBRARY <target> [MODULE_SOURCES <src>...]]
#                        [MANIFEST <manifest.toml>])
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
# MANIFEST is the plugin's capability manifest (docs/plugin-guide.md, "Capability
# manifest"): a TOML file naming the plugin, its backends and the (op, dtype) pairs it
# claims. It is checked here, at configure time (each error names the file and line), and
# its text goes into the module's ELF note section .note.backplane.manifest together with
# the BP_ABI_MAJOR/BP_ABI_MINOR of the <backplane/plugin.h> the module is compiled against,
# so `backplane inspect` and the conformance audit read it without loading the plugin.
# A change to the file re-runs CMake, which regenerates the note's source.
# Add the plugin's own dependencies with target_link_libraries(backplane_plugin_<name> ...),
# and with STATIC_LIBRARY the compile-time ones (headers, flags) to the _objects library.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(backplane_add_plugin)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "NO_INSTALL"
                        "NAME;INSTALL_DESTINATION;OUTPUT_DIRECTORY;STATIC_LIBRARY;MANIFEST"
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

  if(ARG_MANIFEST)
    # The module only: a static plugin linked into a program would put its note there.
    _backplane_manifest_source(${ARG_NAME} "${ARG_MANIFEST}" note_source)
    target_sources(${target} PRIVATE ${note_source})
  endif()

  if(NOT ARG_NO_INSTALL)
    if(NOT ARG_INSTALL_DESTINATION)
      set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/backplane/plugins)
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
  endif()
endfunction()

# ---- MANIFEST: the capability manifest's check and its ELF note ----

# Fails the configure step with "<file>:<line>: <what>", the form every manifest error takes.
function(_backplane_manifest_fail file line what)
  message(FATAL_ERROR "${file}:${line}: ${what}")
endfunction()

# The strings of a one-line TOML array of double-quoted strings ("[\"a\", \"b\"]", a
# trailing comma allowed) into out_var, or fails naming the file and line.
function(_backplane_manifest_list file line value what out_var)
  if(NOT value MATCHES "^\\[([^]#]*)\\][ \t]*(#.*)?$")
    _backplane_manifest_fail(${file} ${line} "${what} must be an array of strings on one line, "
                             "like [\"f32\", \"f16\"], not '${value}'")
  endif()
  string(REPLACE "," ";" items "${CMAKE_MATCH_1}")
  set(out "")
  foreach(item IN LISTS items)
    string(STRIP "${item}" item)
    if(item STREQUAL "")
      continue()  # a trailing comma, or an empty array
    endif()
    if(NOT item MATCHES "^\"([^\"\\\\]*)\"$")
      _backplane_manifest_fail(${file} ${line} "${what}: '${item}' is not a double-quoted string")
    endif()
    if(CMAKE_MATCH_1 IN_LIST out)
      _backplane_manifest_fail(${file} ${line} "${what} names '${CMAKE_MATCH_1}' twice")
    endif()
    list(APPEND out "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT out)
    _backplane_manifest_fail(${file} ${line} "${what} is empty")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Checks one "key = value" line of the manifest's [plugin] or [claims] table.
function(_backplane_manifest_entry file line section key value)
  # bp::dtype_name's short names (core/src/dtype.cpp; tests/conformance/test_manifest.cpp
  # checks that the two lists agree).
  set(dtypes bool i8 u8 i16 i32 i64 f16 bf16 f32 f64)
  if(section STREQUAL "plugin" AND key STREQUAL "name")
    if(NOT value MATCHES "^\"[^\"\\\\]+\"[ \t]*(#.*)?$")
      _backplane_manifest_fail(${file} ${line} "[plugin] name must be a non-empty string")
    endif()
  elseif(section STREQUAL "plugin" AND key STREQUAL "backends")
    _backplane_manifest_list(${file} ${line} "${value}" "[plugin] backends" names)
    foreach(backend IN LISTS names)
      if(NOT backend MATCHES "^[a-z][a-z0-9_]*$")
        _backplane_manifest_fail(${file} ${line} "backend '${backend}' must match [a-z][a-z0-9_]*")
      endif()
    endforeach()
  elseif(section STREQUAL "plugin")
    _backplane_manifest_fail(${file} ${line} "[plugin]: unknown key '${key}' (expected 'name' "
                             "and 'backends')")
  elseif(section STREQUAL "claims")
    if(NOT key MATCHES "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)?$")
      _backplane_manifest_fail(${file} ${line} "[claims]: '${key}' is not an op name like "
                               "\"add.Tensor\" or relu")
    endif()
    _backplane_manifest_list(${file} ${line} "${value}" "[claims] ${key}" names)
    foreach(dtype IN LISTS names)
      if(NOT dtype IN_LIST dtypes)
        string(REPLACE ";" ", " known "${dtypes}")
        _backplane_manifest_fail(${file} ${line} "[claims] ${key}: unknown dtype '${dtype}' "
                                 "(expected one of ${known})")
      endif()
    endforeach()
  else()
    _backplane_manifest_fail(${file} ${line} "'${key}' outside the [plugin] and [claims] tables")
  endif()
endfunction()

# Checks a manifest at configure time, as far as a line-by-line reading allows: the two
# tables, their keys, one entry per line, known dtype names, and no key twice. The CLI's
# TOML reader checks the rest (op names against the catalog) when it reads the note.
function(_backplane_manifest_check file)
  file(READ "${file}" text)
  set(section "")
  set(line 0)
  set(seen "")
  while(NOT text STREQUAL "")
    string(FIND "${text}" "\n" nl)
    if(nl EQUAL -1)
      set(current "${text}")
      set(text "")
    else()
      string(SUBSTRING "${text}" 0 ${nl} current)
      math(EXPR nl "${nl} + 1")
      string(SUBSTRING "${text}" ${nl} -1 text)
    endif()
    math(EXPR line "${line} + 1")
    string(REGEX REPLACE "\r$" "" current "${current}")
    if(current MATCHES "^[ \t]*(#.*)?$")
      continue()
    elseif(current MATCHES "^[ \t]*\\[[ \t]*([^] \t]*)[ \t]*\\][ \t]*(#.*)?$")
      set(section "${CMAKE_MATCH_1}")
      if(NOT section MATCHES "^(plugin|claims)$")
        _backplane_manifest_fail(${file} ${line} "unknown table [${section}] (expected [plugin] "
                                 "and [claims])")
      endif()
      if("[${section}]" IN_LIST seen)
        _backplane_manifest_fail(${file} ${line} "table [${section}] appears twice")
      endif()
      list(APPEND seen "[${section}]")
      continue()
    elseif(current MATCHES "^[ \t]*(\"[^\"]*\"|[A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*)$")
      set(value "${CMAKE_MATCH_2}")
      string(REGEX REPLACE "^\"(.*)\"$" "\\1" key "${CMAKE_MATCH_1}")
      _backplane_manifest_entry(${file} ${line} "${section}" "${key}" "${value}")
    else()
      _backplane_manifest_fail(${file} ${line} "not a [table] or a 'key = value' line (an op "
                               "name with an overload is quoted: \"add.Tensor\" = [\"f32\"])")
    endif()
    if("${section}/${key}" IN_LIST seen)
      _backplane_manifest_fail(${file} ${line} "'${key}' appears twice in [${section}]")
    endif()
    list(APPEND seen "${section}/${key}")
  endwhile()
  foreach(required plugin/name plugin/backends)
    if(NOT required IN_LIST seen)
      string(REPLACE "/" "] " what "[${required}")
      _backplane_manifest_fail(${file} 1 "the manifest has no ${what}")
    endif()
  endforeach()
endfunction()

# Checks the manifest and writes the C++ source of the module's ELF note into out_var:
#   namesz 10, descsz, type 1, "Backplane\0" padded to 12 bytes, then the desc: the
#   BP_ABI_MAJOR and BP_ABI_MINOR of the <backplane/plugin.h> the module compiles against
#   (a plugin built against an older header records that minor), then the manifest's bytes.
# The note is `used`, so the compiler keeps it, and the linker keeps every note section
# (--gc-sections included); alignas(4) because clang aligns a large object to 16 or 32,
# which would break the note layout.
function(_backplane_manifest_source name manifest out_var)
  get_filename_component(manifest "${manifest}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${manifest}")
    message(FATAL_ERROR "backplane_add_plugin(NAME ${name}): MANIFEST '${manifest}' does not exist")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  _backplane_manifest_check("${manifest}")
  file(READ "${manifest}" hex HEX)
  string(LENGTH "${hex}" size)
  math(EXPR size "${size} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REPEAT "0x..," 16 row)
  string(REGEX REPLACE "(${row})" "\\1\n     " bytes "${bytes}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/backplane_plugin_${name}_manifest.cpp")
  file(CONFIGURE OUTPUT "${out}" @ONLY CONTENT [=[
// The capability manifest of the Backplane plugin @name@ as an ELF note, generated by
// backplane_add_plugin from @manifest@ (edit that file, not this one).
#include <backplane/plugin.h>

#include <cstdint>

namespace {
struct BackplaneManifestNote {
  std::uint32_t namesz, descsz, type;
  char name[12];
  std::uint32_t abi_major, abi_minor;
  unsigned char text[@size@];
};
[[gnu::used, gnu::section(".note.backplane.manifest")]] alignas(4) const BackplaneManifestNote
    backplane_manifest_note = {10, 8 + @size@, 1, "Backplane", BP_ABI_MAJOR, BP_ABI_MINOR,
    {@bytes@}};
}  // namespace
]=])
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
