// Example: one transformer block's forward pass (causal multi-head attention, layer_norm,
// GELU MLP, residuals) on the device the user configured.
//   BACKPLANE_DEVICE=cpu backplane_transformer_block --seq 128 --dim 256 --heads 8 --check
// The model is examples/models/transformer_block.hpp; the flags and the report,
// example_main.hpp.
#include "models/transformer_block.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  using bp::examples::add_size_flag;
  using bp::examples::TransformerBlockConfig;
  return bp::examples::example_main<bp::examples::TransformerBlock, TransformerBlockConfig>(
      argc, argv, "Transformer block forward pass (pre-norm, causal multi-head attention)",
      [](CLI::App& app, TransformerBlockConfig& c) {
        add_size_flag(app, "--batch", c.batch, "Sequences");
        add_size_flag(app, "--seq", c.seq, "Tokens per sequence");
        add_size_flag(app, "--dim", c.dim, "Model width");
        add_size_flag(app, "--heads", c.heads, "Attention heads (dim must be a multiple)");
        add_size_flag(app, "--ffn", c.ffn, "Hidden width of the MLP");
      });
}
