// Standalone reproducers of conformance cases (`backplane conformance --emit-repro DIR`): a
// C++ program and its CMakeLists.txt that build against the installed Backplane package
// (find_package(Backplane)) and rerun one case without the suite: the plugin files loaded
// by path, the case's inputs embedded byte for byte with their sizes, strides and storage
// offsets, the op called by name on the device under test and on the reference backend,
// and the outputs compared under the case's tolerance. It exits 0 when the device agrees,
// 1 when it does not (printing the first bad element), 2 when it cannot run. A vendor can
// hand the folder to whoever debugs the kernel, with no conformance suite at hand.
#pragma once

#include "backplane/conformance/case_id.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bp::conformance {

struct ReproFiles {
  std::string cmake_lists;  // CMakeLists.txt
  std::string source;       // repro.cpp
};

struct ReproTarget {
  std::string device;                     // "cpu:0"
  std::vector<std::string> plugin_files;  // absolute paths, loaded in this order
  std::string cpu_isa;                    // BACKPLANE_CPU_ISA to set (unless already set), or ""
};

// The reproducer of case `id` (an op's case, not a device-API check) under `suite_seed`.
ReproFiles make_repro(const CaseId& id, uint64_t suite_seed, const ReproTarget& target);

// A folder name for a case id: its parts joined by '__' ("add.Tensor__f32__transposed_17x9").
std::string repro_folder_name(const CaseId& id);

}  // namespace bp::conformance
