// bp::to_string: tensor values printed the way PyTorch prints them, so output can be
// compared by eye with torch: tensor([[1., 2.],\n        [3., 4.]], dtype=f16).
#include "backplane/tensor_api.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

namespace bp {
namespace {

struct Formatter {
  ScalarType dtype;
  bool all_integral = true;  // floating values that are all whole numbers print as "1."

  std::string format(double v) const {
    if (dtype == ScalarType::Bool) return v != 0 ? "True" : "False";
    if (!is_floating(dtype)) return fmt::format("{}", static_cast<int64_t>(v));
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (all_integral) return fmt::format("{:.0f}.", v);
    return fmt::format("{:.4f}", v);
  }
};

void print_dim(std::string& out, const std::vector<std::string>& cells, const Shape& sizes,
               size_t dim, size_t& pos, size_t indent) {
  out += '[';
  const int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (dim + 1 == sizes.size()) {
      out += cells[pos++];
      if (i + 1 < n) out += ", ";
    } else {
      print_dim(out, cells, sizes, dim + 1, pos, indent + 1);
      if (i + 1 < n) {
        out += ',';
        out += std::string(sizes.size() - dim - 1, '\n');
        out += std::string(indent + 1, ' ');
      }
    }
  }
  out += ']';
}

}  // namespace

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  const bool is_int = is_integral(t.dtype());
  std::vector<std::string> cells;
  Formatter f{t.dtype()};
  if (is_int) {
    for (int64_t v : to_vector<int64_t>(t)) cells.push_back(fmt::format("{}", v));
  } else {
    std::vector<double> values = to_vector<double>(t);
    for (double v : values)
      if (std::isfinite(v) && v != std::floor(v)) f.all_integral = false;
    for (double v : values) cells.push_back(f.format(v));
  }
  // Pad cells to a common width, right-aligned, as PyTorch does.
  size_t width = 0;
  for (const auto& c : cells) width = std::max(width, c.size());
  for (auto& c : cells) c = std::string(width - c.size(), ' ') + c;

  std::string out = "tensor(";
  if (t.dim() == 0) {
    out += cells.empty() ? "" : cells[0];
  } else {
    size_t pos = 0;
    print_dim(out, cells, t.sizes(), 0, pos, 7);
  }
  const bool default_dtype =
      t.dtype() == kDefaultFloat || t.dtype() == ScalarType::Int64 || t.dtype() == ScalarType::Bool;
  if (!default_dtype || t.numel() == 0) out += fmt::format(", dtype={}", dtype_name(t.dtype()));
  if (t.device() != default_device()) out += fmt::format(", device={}", t.device().str());
  out += ')';
  return out;
}

}  // namespace bp
