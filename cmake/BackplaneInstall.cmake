# Install rules (included from the root CMakeLists.txt after every target is defined).
#
#   <prefix>/include/backplane/...              core, dispatch and plugin-sdk headers
#   <prefix>/lib/libbackplane{,_core,_reference}.a   the runtime (static)
#   <prefix>/lib/backplane/plugins/             loadable plugins (BP_INSTALL_PLUGIN_DIR)
#   <prefix>/bin/backplane                      the CLI
#   <prefix>/lib/cmake/Backplane/               find_package(Backplane) -> Backplane::backplane
#   <prefix>/lib/cmake/BackplanePluginSDK/      find_package(BackplanePluginSDK) ->
#                                               Backplane::sdk + backplane_add_plugin()
#   <prefix>/share/backplane/plugin-template/   plugin-sdk/template, to copy (or to have
#                                               `backplane new-plugin` copy and rename)
#   <prefix>/share/backplane/examples/          examples/, to build against the install
#   <prefix>/share/doc/backplane/               docs/*.md: the plugin guide, SDK, conformance,
#                                               ops, op reference and CLI docs, and every
#                                               doc they link to (which is all of docs/)
#
# The SDK is its own package so that a vendor's build depends on the header-only SDK
# alone; the runtime package finds it (Backplane::backplane links Backplane::sdk), so each
# imported target is defined exactly once whichever package is found first.
include(CMakePackageConfigHelpers)

set(BP_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake)
# The ABI version the SDK package reports comes from the header itself (one source of truth).
foreach(part MAJOR MINOR)
  file(STRINGS ${PROJECT_SOURCE_DIR}/plugin-sdk/include/backplane/plugin.h line
       REGEX "^#define BP_ABI_${part} [0-9]+")
  string(REGEX REPLACE "^#define BP_ABI_${part} ([0-9]+).*" "\\1" BP_ABI_${part} "${line}")
endforeach()
set(BP_INSTALL_PLUGIN_SUBDIR ${CMAKE_INSTALL_LIBDIR}/backplane/plugins)

# ---- headers: three source trees merge into <prefix>/include/backplane ----
foreach(dir core/include dispatch/include plugin-sdk/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT development FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
endforeach()

# ---- the plugin SDK package ----
set_target_properties(backplane_sdk PROPERTIES EXPORT_NAME sdk)
install(TARGETS backplane_sdk EXPORT BackplanePluginSDKTargets)
install(EXPORT BackplanePluginSDKTargets NAMESPACE Backplane::
        DESTINATION ${BP_INSTALL_CMAKE_DIR}/BackplanePluginSDK COMPONENT development)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/BackplanePluginSDKConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/BackplanePluginSDKConfig.cmake
  INSTALL_DESTINATION ${BP_INSTALL_CMAKE_DIR}/BackplanePluginSDK
  PATH_VARS BP_INSTALL_PLUGIN_SUBDIR)
# Header-only: usable by a build of any pointer size.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/BackplanePluginSDKConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/cmake/BackplanePluginSDKConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/BackplanePluginSDKConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/BackplanePluginSDK.cmake
        DESTINATION ${BP_INSTALL_CMAKE_DIR}/BackplanePluginSDK COMPONENT development)

# ---- the runtime package ----
set_target_properties(backplane PROPERTIES EXPORT_NAME backplane)
set_target_properties(backplane_core PROPERTIES EXPORT_NAME core)
set_target_properties(backplane_reference PROPERTIES EXPORT_NAME reference)
# Backplane::cli is the installed `backplane` program, for a vendor's tests to run
# `$<TARGET_FILE:Backplane::cli> info --plugin ...`.
set_target_properties(backplane_cli PROPERTIES EXPORT_NAME cli)
install(TARGETS backplane backplane_core backplane_reference backplane_cli
        EXPORT BackplaneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(EXPORT BackplaneTargets NAMESPACE Backplane::
        DESTINATION ${BP_INSTALL_CMAKE_DIR}/Backplane COMPONENT development)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/BackplaneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/BackplaneConfig.cmake
  INSTALL_DESTINATION ${BP_INSTALL_CMAKE_DIR}/Backplane
  PATH_VARS BP_INSTALL_PLUGIN_SUBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/BackplaneConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/BackplaneConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/BackplaneConfigVersion.cmake
        DESTINATION ${BP_INSTALL_CMAKE_DIR}/Backplane COMPONENT development)

# ---- the loadable plugins ----
# The reference backend is not installed as a loadable plugin: it is built into the runtime,
# so discovery would find a second plugin named "reference" and report it refused on every
# run. Its module build (build/plugins/) exists for the loader tests.
foreach(plugin backplane_plugin_cpu backplane_plugin_opencl backplane_plugin_level_zero
               backplane_plugin_cuda backplane_plugin_rocm)
  if(TARGET ${plugin})
    install(TARGETS ${plugin} LIBRARY DESTINATION ${BP_INSTALL_PLUGIN_SUBDIR} COMPONENT runtime)
  endif()
endforeach()
# The Level Zero plugin's SPIR-V kernels, in the folder beside it where it looks for them.
if(TARGET backplane_plugin_level_zero AND BP_LEVEL_ZERO_SPIRV_FILES)
  install(FILES ${BP_LEVEL_ZERO_SPIRV_FILES}
          DESTINATION ${BP_INSTALL_PLUGIN_SUBDIR}/${BP_LEVEL_ZERO_KERNEL_SUBDIR} COMPONENT runtime)
endif()
# The GPU plugins' kernel modules, likewise beside them.
if(TARGET backplane_plugin_cuda AND BP_CUDA_KERNEL_FILES)
  install(FILES ${BP_CUDA_KERNEL_FILES}
          DESTINATION ${BP_INSTALL_PLUGIN_SUBDIR}/${BP_CUDA_KERNEL_SUBDIR} COMPONENT runtime)
endif()
if(TARGET backplane_plugin_rocm AND BP_ROCM_KERNEL_FILES)
  install(FILES ${BP_ROCM_KERNEL_FILES}
          DESTINATION ${BP_INSTALL_PLUGIN_SUBDIR}/${BP_ROCM_KERNEL_SUBDIR} COMPONENT runtime)
endif()

# ---- the docs: a vendor with only the install has the guides the template points to ----
# docs/ links only within itself, so the folder installed whole is closed under its links
# (scripts/check-out-of-tree checks every link of the installed tree).
set(BP_INSTALL_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/backplane)
file(GLOB BP_DOC_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${BP_DOC_FILES} DESTINATION ${BP_INSTALL_DOC_DIR} COMPONENT development)

# ---- the template plugin, for vendors who start from the installed SDK ----
set(BP_INSTALL_TEMPLATE_DIR ${CMAKE_INSTALL_DATADIR}/backplane/plugin-template)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plugin-sdk/template/
        DESTINATION ${BP_INSTALL_TEMPLATE_DIR} COMPONENT development
        PATTERN "build" EXCLUDE PATTERN "README.md" EXCLUDE)
# The README's links go to the docs in the source tree (../../docs/); the installed copy's
# go to the installed docs, relative to where the template is installed.
file(RELATIVE_PATH bp_docs_from_template ${CMAKE_INSTALL_PREFIX}/${BP_INSTALL_TEMPLATE_DIR}
     ${CMAKE_INSTALL_PREFIX}/${BP_INSTALL_DOC_DIR})
set(bp_template_readme ${PROJECT_SOURCE_DIR}/plugin-sdk/template/README.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${bp_template_readme})
file(READ ${bp_template_readme} bp_readme_text)
string(REPLACE "](../../docs/" "](${bp_docs_from_template}/" bp_readme_text "${bp_readme_text}")
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/plugin-template/README.md CONTENT "${bp_readme_text}"
     @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/plugin-template/README.md DESTINATION ${BP_INSTALL_TEMPLATE_DIR}
        COMPONENT development)

# ---- the examples, to build against this install (docs/examples.md) ----
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/backplane/examples COMPONENT development
        PATTERN "build" EXCLUDE)
