// What the two example programs share: the common flags (--seed, --iterations, --check),
// starting the runtime from the user's config and environment, and the report they print.
// Each program adds the flags of its model's sizes and calls example_main.
#pragma once

#include "models/run_model.hpp"

#include <backplane/backplane.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

namespace bp::examples {

// A model-size flag: a positive number (`validator`: another range) shown with its default.
inline void add_size_flag(CLI::App& app, const std::string& name, int64_t& value,
                          const std::string& help,
                          const CLI::Validator& validator = CLI::PositiveNumber) {
  app.add_option(name, value, help)->check(validator)->capture_default_str();
}

template <class Model, class Config>
int example_main(int argc, char** argv, const std::string& about,
                 const std::function<void(CLI::App&, Config&)>& add_size_flags) {
  CLI::App app{about};
  Config config;
  uint64_t seed = 0;
  int iterations = 10;
  bool check = false;
  add_size_flags(app, config);
  app.add_option("--seed", seed, "Seed of the weights and the input")->capture_default_str();
  app.add_option("--iterations", iterations, "Timed forward passes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--check", check,
               "Also run the model on the reference backend and fail (exit 1) when the "
               "largest difference is out of tolerance");
  app.footer(
      "The device comes from the config and the environment: BACKPLANE_DEVICE=opencl, "
      "backplane.toml (docs/config.md).");
  CLI11_PARSE(app, argc, argv);

  try {
    // Plugins, the default device and the fallback policy as the user configured them.
    init();
    const Device device = default_device();
    std::printf("%s on %s (%s): %s\n", Model::kName, device.str().c_str(),
                device_info(device).name.c_str(), Model::describe(config).c_str());
    const ModelRun run = run_model<Model>(config, seed, device, iterations, check);
    std::printf("output %s\n", shape_str(run.output_shape).c_str());
    std::printf("time per forward pass: %.3f ms (median of %d)\n", run.ms_per_forward,
                run.iterations);
    if (run.checked)
      std::printf("max abs error vs reference:0: %.3g (tolerance %.3g): %s\n", run.max_abs_err,
                  run.tolerance, run.ok() ? "ok" : "FAILED");
    return run.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    // bp::Error's message names the op, the argument and the device.
    std::fprintf(stderr, "%s: error: %s\n", Model::kName, e.what());
    return 1;
  }
}

}  // namespace bp::examples
