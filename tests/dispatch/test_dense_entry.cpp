// The dense entry of an elementwise kernel (ABI 1.3: plugin.h's bp_dense_call and
// register_dense_kernel; the caller is dispatch/src/fast_path.hpp): a contiguous call of one
// shape and dtype goes to it with data pointers, the element count and the Scalars; every
// other call (strided, broadcast, converted, another dtype, tracing, forced fallback, an out=
// it may not write) goes to the kernel; an entry that declines leaves the call to the kernel,
// and one that fails is the call's error. Registration is checked like register_kernel's.
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>
#include <backplane/dispatch/fallback.hpp>
#include <backplane/dispatch/trace.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using bp::test::error_of;

namespace {

// ---- the plugin: add.Tensor (f32, f64) with a dense entry for f32 ------------------------
enum class DenseMode { Compute, Decline, Fail };

struct DenseState {
  int kernel_calls = 0;
  int dense_calls = 0;
  DenseMode mode = DenseMode::Compute;
  bp_dense_call last{};
  bp_value last_alpha{};
  const void* last_inputs[2] = {nullptr, nullptr};
};
DenseState g_state;
const bp_host_api* g_host = nullptr;
// Run by init after the backend and the kernel are registered; returns init's status.
std::function<bp_status(const bp_host_api*, uint32_t)> g_register;

double alpha_of(const bp_value& v) {
  return v.tag == BP_VALUE_INT ? static_cast<double>(v.u.i) : v.tag == BP_VALUE_FLOAT ? v.u.f : 1.0;
}

// Element i of a strided tensor (row-major index over its shape).
template <typename T>
T* element(const bp_tensor* t, int64_t i) {
  int64_t offset = 0;
  for (int32_t d = t->ndim; d-- > 0;) {
    offset += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return reinterpret_cast<T*>(static_cast<char*>(t->data) + t->byte_offset) + offset;
}

template <typename T>
void add_strided(const bp_call* call) {
  const bp_tensor* a = call->args[0].u.tensor;
  const bp_tensor* b = call->args[1].u.tensor;
  const bp_tensor* out = call->args[3].u.tensor;
  const T alpha = static_cast<T>(alpha_of(call->args[2]));
  int64_t n = 1;
  for (int32_t d = 0; d < out->ndim; ++d) n *= out->shape[d];
  for (int64_t i = 0; i < n; ++i)
    *element<T>(out, i) = *element<T>(a, i) + alpha * *element<T>(b, i);
}

bp_status add_kernel(const bp_call* call) {
  ++g_state.kernel_calls;
  if (call->args[0].u.tensor->dtype == BP_DTYPE_F64)
    add_strided<double>(call);
  else
    add_strided<float>(call);
  return BP_OK;
}

// copy_ between f32 and f64 tensors of any strides: what moving and converting tensors on
// the device needs.
bp_status copy_kernel(const bp_call* call) {
  const bp_tensor* self = call->args[0].u.tensor;
  const bp_tensor* src = call->args[1].u.tensor;
  int64_t n = 1;
  for (int32_t d = 0; d < self->ndim; ++d) n *= self->shape[d];
  for (int64_t i = 0; i < n; ++i) {
    const double v =
        src->dtype == BP_DTYPE_F64 ? *element<double>(src, i) : *element<float>(src, i);
    if (self->dtype == BP_DTYPE_F64)
      *element<double>(self, i) = v;
    else
      *element<float>(self, i) = static_cast<float>(v);
  }
  return BP_OK;
}

bp_status add_dense(const bp_dense_call* call) {
  ++g_state.dense_calls;
  g_state.last = *call;
  g_state.last_alpha = call->scalars[0];
  g_state.last_inputs[0] = call->inputs[0];
  g_state.last_inputs[1] = call->inputs[1];
  if (g_state.mode == DenseMode::Decline) return BP_ERR_UNSUPPORTED;
  if (g_state.mode == DenseMode::Fail) {
    g_host->set_error(g_host->host, BP_ERR_DEVICE, "the dense queue is full");
    return BP_ERR_DEVICE;
  }
  const auto* a = static_cast<const float*>(call->inputs[0]);
  const auto* b = static_cast<const float*>(call->inputs[1]);
  auto* out = static_cast<float*>(call->out);
  const auto alpha = static_cast<float>(alpha_of(call->scalars[0]));
  for (int64_t i = 0; i < call->numel; ++i) out[i] = a[i] + alpha * b[i];
  return BP_OK;
}

bp_status dense_init(const bp_host_api* host, const char*) {
  g_host = host;
  uint32_t id = 0;
  bp_status s =
      host->register_backend(host->host, "densetest", &bp::test::kMallocDeviceApi, nullptr, &id);
  if (s != BP_OK) return s;
  const bp_dtype_mask f32_f64 = BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64);
  s = host->register_kernel(host->host, id, "copy_", f32_f64, copy_kernel, nullptr);
  if (s != BP_OK) return s;
  if (g_register) return g_register(host, id);
  s = host->register_kernel(host->host, id, "add.Tensor",
                            BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64), add_kernel,
                            nullptr);
  if (s != BP_OK) return s;
  return host->register_dense_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32),
                                     add_dense, nullptr);
}

const bp_plugin_descriptor kDensePlugin = {sizeof(bp_plugin_descriptor),
                                           BP_ABI_MAJOR,
                                           BP_ABI_MINOR,
                                           "densetest",
                                           "0.0.1",
                                           "Backplane tests",
                                           dense_init,
                                           nullptr};

struct DenseDevice {
  bp::Device device;
  explicit DenseDevice(std::function<bp_status(const bp_host_api*, uint32_t)> reg = nullptr) {
    g_register = std::move(reg);
    g_state = DenseState{};
    const bp::PluginLoadReport r = bp::register_plugin(&kDensePlugin, "dense entry test");
    g_register = nullptr;
    REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
    device = bp::Device::parse("densetest:0");
  }
  ~DenseDevice() { bp::unregister_plugin("densetest"); }
};

// The message with which loading the plugin fails when its init runs `reg`.
std::string load_failure(std::function<bp_status(const bp_host_api*, uint32_t)> reg) {
  g_register = std::move(reg);
  const bp::PluginLoadReport r = bp::register_plugin(&kDensePlugin, "dense entry test");
  g_register = nullptr;
  if (r.status == bp::LoadStatus::Loaded) {
    bp::unregister_plugin("densetest");
    return "(loaded)";
  }
  return r.message;
}

const bp::Device kRef(bp::device_types::Reference, 0);

std::vector<float> values(const bp::Tensor& t) {
  return bp::to_vector<float>(bp::to(bp::to(t, kRef), bp::ScalarType::Float32));
}

}  // namespace

TEST_CASE("dense entry: a contiguous call gets the data, the count, the dtypes and the Scalars") {
  DenseDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({10, 20, 30, 40, 50, 60}, {2, 3}, dev.device);
  const std::vector<float> expected = {26, 52, 78, 104, 130, 156};

  const bp::Tensor c = bp::add(a, b, 2.5);
  CHECK(g_state.dense_calls == 1);
  CHECK(g_state.kernel_calls == 0);
  CHECK(g_state.last.struct_size == sizeof(bp_dense_call));
  CHECK(g_state.last.numel == 6);
  CHECK(g_state.last.dtype == BP_DTYPE_F32);
  CHECK(g_state.last.out_dtype == BP_DTYPE_F32);
  CHECK(g_state.last.device_index == 0);
  CHECK(g_state.last_alpha.tag == BP_VALUE_FLOAT);
  CHECK(g_state.last_alpha.u.f == 2.5);
  CHECK(g_state.last_inputs[0] == a.data_ptr());
  CHECK(g_state.last_inputs[1] == b.data_ptr());
  CHECK(g_state.last.out == c.data_ptr());
  CHECK(values(c) == expected);

  // out=, the boxed API, and in place (the output is the first input).
  bp::Tensor out = bp::empty({2, 3}, bp::ScalarType::Float32, dev.device);
  bp::add_out(out, a, b, 2.5);
  CHECK(g_state.last.out == out.data_ptr());
  CHECK(values(out) == expected);
  CHECK(values(bp::call("add.Tensor", {a, b, bp::Scalar(int64_t{3})})[0]) ==
        std::vector<float>{31, 62, 93, 124, 155, 186});
  CHECK(g_state.last_alpha.tag == BP_VALUE_INT);
  bp::Tensor self = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev.device);
  bp::add_(self, b, 2.5);
  CHECK(g_state.last.out == self.data_ptr());
  CHECK(g_state.last_inputs[0] == self.data_ptr());
  CHECK(values(self) == expected);
  // A narrowed view is contiguous too: the pointers are of its first element.
  const bp::Tensor row = a.select(0, 1);
  bp::add(row, b.select(0, 0));
  CHECK(g_state.last_inputs[0] == row.data_ptr());
  CHECK(g_state.dense_calls == 5);
  CHECK(g_state.kernel_calls == 0);
}

TEST_CASE("dense entry: every call it cannot take runs the kernel, with the same result") {
  DenseDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({10, 20, 30, 40, 50, 60}, {2, 3}, dev.device);
  const bp::Tensor bt = bp::from_vector<float>({10, 40, 20, 50, 30, 60}, {3, 2}, dev.device).t();
  const std::vector<float> expected = {11, 22, 33, 44, 55, 66};
  struct Case {
    const char* name;
    std::function<bp::Tensor()> run;
    std::vector<float> expected;
  };
  bp::Tensor strided_out = bp::empty({3, 2}, bp::ScalarType::Float32, dev.device).t();
  const Case cases[] = {
      {"a transposed input", [&] { return bp::add(a, bt); }, expected},
      {"a broadcast input",
       [&] {
         return bp::add(a, bp::from_vector<float>({1, 2, 3}, {3}, dev.device));
       },
       {2, 4, 6, 5, 7, 9}},
      {"a dtype without a dense entry (f64)",
       [&] {
         return bp::add(bp::to(a, bp::ScalarType::Float64), bp::to(b, bp::ScalarType::Float64));
       },
       expected},
      {"an input converted to the compute dtype (f64 + f32)",
       [&] { return bp::add(bp::to(a, bp::ScalarType::Float64), b); }, expected},
      {"a strided out=", [&] { return bp::add_out(strided_out, a, b); }, expected},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    g_state.dense_calls = g_state.kernel_calls = 0;
    CHECK(values(c.run()) == c.expected);
    CHECK(g_state.dense_calls == 0);
    CHECK(g_state.kernel_calls == 1);
  }
}

TEST_CASE("dense entry: a dispatch layer or a forced fallback passes it by") {
  DenseDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({10, 20, 30, 40, 50, 60}, {2, 3}, dev.device);
  const std::vector<float> expected = {11, 22, 33, 44, 55, 66};
  SUBCASE("while tracing (a dispatch layer is on)") {
    const std::filesystem::path trace =
        std::filesystem::temp_directory_path() / ("bp_dense_trace_" + std::to_string(::getpid()));
    g_state.dense_calls = g_state.kernel_calls = 0;
    bp::start_trace(trace);
    const bp::Tensor c = bp::add(a, b);
    bp::stop_trace();
    std::filesystem::remove(trace);
    CHECK(values(c) == expected);
    CHECK(g_state.dense_calls == 0);
    CHECK(g_state.kernel_calls == 1);
  }
  SUBCASE("forced to the CPU fallback: neither the kernel nor its dense entry runs") {
    const bp::test::CpuPluginForTest cpu;
    REQUIRE_MESSAGE(cpu.report.status == bp::LoadStatus::Loaded, cpu.report.message);
    g_state.dense_calls = g_state.kernel_calls = 0;
    bp::force_fallback("densetest", "add.Tensor");
    bp::Tensor c;
    const std::string message = error_of([&] { c = bp::add(a, b); });
    bp::clear_forced_fallbacks();
    CHECK(message == "(no error)");
    CHECK(values(c) == expected);
    CHECK(g_state.dense_calls == 0);
    CHECK(g_state.kernel_calls == 0);
  }
}

TEST_CASE("dense entry: one that declines leaves the call to the kernel; its error is the call's") {
  DenseDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({10, 20, 30}, {3}, dev.device);
  g_state.mode = DenseMode::Decline;
  CHECK(values(bp::add(a, b)) == std::vector<float>{11, 22, 33});
  CHECK(g_state.dense_calls == 1);
  CHECK(g_state.kernel_calls == 1);

  g_state.mode = DenseMode::Fail;
  bp::Tensor out = bp::empty({3}, bp::ScalarType::Float32, dev.device);
  CHECK(error_of([&] { bp::add_out(out, a, b); }, bp::ErrorCode::Device) ==
        "add.Tensor on densetest:0: the dense queue is full");
  CHECK(g_state.kernel_calls == 1);
}

TEST_CASE("register_dense_kernel refuses what it cannot use, saying what is wrong") {
  const bp_dtype_mask f32 = BP_DTYPE_BIT(BP_DTYPE_F32);
  const bp_dtype_mask f64 = BP_DTYPE_BIT(BP_DTYPE_F64);
  auto kernel_then = [](bp_dtype_mask kernel,
                        std::function<bp_status(const bp_host_api*, uint32_t)> then) {
    return [kernel, then](const bp_host_api* host, uint32_t id) {
      const bp_status s =
          host->register_kernel(host->host, id, "add.Tensor", kernel, add_kernel, nullptr);
      return s != BP_OK ? s : then(host, id);
    };
  };
  auto dense = [](const char* op, bp_dtype_mask dtypes, bp_dense_kernel_fn fn) {
    return [=](const bp_host_api* host, uint32_t id) {
      return host->register_dense_kernel(host->host, id, op, dtypes, fn, nullptr);
    };
  };
  CHECK(load_failure(dense("add.Tensor", f32, add_dense))
            .find("register_dense_kernel(add.Tensor): dtypes f32 have no kernel on this "
                  "backend (it has none); register the kernel for them first") !=
        std::string::npos);
  CHECK(load_failure(kernel_then(f32, dense("add.Tensor", f32 | f64, add_dense)))
            .find("dtypes f64 have no kernel on this backend (it has f32)") != std::string::npos);
  CHECK(load_failure(dense("sum.dim_IntList", f32, add_dense))
            .find("register_dense_kernel(sum.dim_IntList): the op has no dense form") !=
        std::string::npos);
  CHECK(load_failure(kernel_then(f32, dense("add.Tensor", f32, nullptr)))
            .find("register_dense_kernel(add.Tensor): the kernel function is NULL") !=
        std::string::npos);
  CHECK(load_failure(dense("no_such_op", f32, add_dense))
            .find("register_dense_kernel: unknown operator 'no_such_op'") != std::string::npos);
  CHECK(load_failure(kernel_then(f32, dense("add.Tensor", 0, add_dense)))
            .find("the dtype mask is empty") != std::string::npos);
  // A second entry for the op: the same function adds dtypes, another one is refused.
  auto twice = [](bp_dense_kernel_fn second) {
    return [second](const bp_host_api* host, uint32_t id) {
      bp_status s = host->register_kernel(host->host, id, "add.Tensor", BP_DTYPES_FLOATING,
                                          add_kernel, nullptr);
      if (s == BP_OK)
        s = host->register_dense_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32),
                                        add_dense, nullptr);
      if (s == BP_OK)
        s = host->register_dense_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F64),
                                        second, nullptr);
      return s;
    };
  };
  CHECK(load_failure(twice([](const bp_dense_call*) -> bp_status {
          return BP_OK;
        })).find("backend 'densetest' already has another dense entry for this op (f32)") !=
        std::string::npos);
  CHECK(load_failure(twice(add_dense)) == "(loaded)");
}

TEST_CASE("register_dense_kernel after init is refused and changes nothing") {
  DenseDevice dev;
  const bp_status s = g_host->register_dense_kernel(g_host->host, 0, "mul.Tensor",
                                                    BP_DTYPE_BIT(BP_DTYPE_F32), add_dense, nullptr);
  CHECK(s == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, dev.device);
  CHECK(values(bp::add(a, a)) == std::vector<float>{2, 4});
  CHECK(g_state.dense_calls == 1);
}
