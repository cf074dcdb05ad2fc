// libtorch's side of the instruction-count comparison (issue 8): a 1-element f32 at::add
// (allocating) and at::add_out, and a custom no-op op called through the c10 dispatcher,
// each in its own measured_* function of kIterations calls, like bench/add_one_element.cpp
// (the Backplane side). Run under callgrind collecting one function at a time
// (bench/report.py does): instructions / kIterations is the per-call cost. Default mode
// (no InferenceMode): what an application calling libtorch's C++ API gets.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <cstdio>

namespace {

constexpr int kIterations = 10000;

void noop(const at::Tensor&) {}

TORCH_LIBRARY(bp_bench, m) {
  m.def("noop(Tensor a) -> ()");
}
TORCH_LIBRARY_IMPL(bp_bench, CPU, m) {
  m.impl("noop", noop);
}

__attribute__((noinline)) void measured_torch_add(const at::Tensor& a, const at::Tensor& b) {
  for (int i = 0; i < kIterations; ++i) {
    at::Tensor c = at::add(a, b);
    asm volatile("" : : "r"(c.data_ptr()) : "memory");
  }
}

__attribute__((noinline)) void measured_torch_add_out(at::Tensor& out, const at::Tensor& a,
                                                      const at::Tensor& b) {
  for (int i = 0; i < kIterations; ++i) at::add_out(out, a, b);
}

__attribute__((noinline)) void measured_c10_noop(
    const c10::TypedOperatorHandle<void(const at::Tensor&)>& op, const at::Tensor& a) {
  for (int i = 0; i < kIterations; ++i) {
    op.call(a);
    asm volatile("" : : : "memory");
  }
}

}  // namespace

int main() {
  const at::Tensor a = at::full({1}, 1.5), b = at::full({1}, 2.0);
  at::Tensor out = at::empty({1});
  const auto op = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("bp_bench::noop", "")
                      .typed<void(const at::Tensor&)>();
  // Warm up: first calls initialise the dispatcher's tables and the allocator.
  for (int i = 0; i < 100; ++i) {
    at::add_out(out, a, at::add(a, b));
    op.call(a);
  }
  measured_torch_add(a, b);
  measured_torch_add_out(out, a, b);
  measured_c10_noop(op, a);
  std::printf("libtorch: iterations per measured function: %d (result %g)\n", kIterations,
              out.item<float>());
  return 0;
}
