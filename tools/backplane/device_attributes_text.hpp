// How the `backplane` subcommands show where a device computes: its attributes
// (bp::device_attributes: the CPU plugin's ISA level and the code Highway and oneDNN chose)
// as one line for tables, as an object for JSON. A plugin whose attributes call fails does
// not stop a report: the failure is what gets shown.
#pragma once

#include <backplane/core/device.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace bp::cli {

// "isa=avx2 highway=AVX2 onednn=avx2"; "" when the plugin says nothing; "(attributes
// failed: ...)" when asking failed.
std::string attributes_line(Device device);

// {"isa": "avx2", ...}; {"error": "..."} when asking failed.
nlohmann::ordered_json attributes_json(Device device);

}  // namespace bp::cli
