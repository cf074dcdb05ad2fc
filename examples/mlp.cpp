// Example: an MLP classifier's forward pass on the device the user configured.
//   BACKPLANE_DEVICE=opencl backplane_mlp --batch 128 --hidden 1024 --check
// The model is examples/models/mlp.hpp; the flags and the report, example_main.hpp.
#include "models/mlp.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  using bp::examples::MlpConfig;
  return bp::examples::example_main<bp::examples::Mlp, MlpConfig>(
      argc, argv, "MLP forward pass: (linear -> relu) x layers -> linear -> log_softmax",
      [](CLI::App& app, MlpConfig& c) {
        app.add_option("--batch", c.batch, "Rows of the input")
            ->check(CLI::PositiveNumber)
            ->capture_default_str();
        app.add_option("--in", c.in, "Input features")
            ->check(CLI::PositiveNumber)
            ->capture_default_str();
        app.add_option("--hidden", c.hidden, "Width of the hidden layers")
            ->check(CLI::PositiveNumber)
            ->capture_default_str();
        app.add_option("--classes", c.classes, "Outputs")
            ->check(CLI::PositiveNumber)
            ->capture_default_str();
        app.add_option("--layers", c.layers, "Hidden layers")
            ->check(CLI::NonNegativeNumber)
            ->capture_default_str();
      });
}
