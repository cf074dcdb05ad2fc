// Example: an MLP classifier's forward pass on the device the user configured.
//   BACKPLANE_DEVICE=opencl backplane_mlp --batch 128 --hidden 1024 --check
// The model is examples/models/mlp.hpp; the flags and the report, example_main.hpp.
#include "models/mlp.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  using bp::examples::add_size_flag;
  using bp::examples::MlpConfig;
  return bp::examples::example_main<bp::examples::Mlp, MlpConfig>(
      argc, argv, "MLP forward pass: (linear -> relu) x layers -> linear -> log_softmax",
      [](CLI::App& app, MlpConfig& c) {
        add_size_flag(app, "--batch", c.batch, "Rows of the input");
        add_size_flag(app, "--in", c.in, "Input features");
        add_size_flag(app, "--hidden", c.hidden, "Width of the hidden layers");
        add_size_flag(app, "--classes", c.classes, "Outputs");
        add_size_flag(app, "--layers", c.layers, "Hidden layers", CLI::NonNegativeNumber);
      });
}
