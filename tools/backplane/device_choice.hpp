// `backplane devices --explain`: how the config, the environment and the selector chose the
// default device. Names the selector in effect and where it came from, every candidate
// device with why it was kept or dropped (in the order the selector tries them), and every
// plugin that was never opened or could not be used, with the reason the runtime recorded.
#pragma once

#include "plugin_options.hpp"

#include <string>
#include <vector>

namespace bp::cli {

// The explanation as text, from the runtime as `load_plugins` left it.
std::string explain_device_choice(const LoadedRuntime& runtime);

}  // namespace bp::cli
