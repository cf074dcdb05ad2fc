// The C++ plugin SDK (plugin-sdk/include/backplane/sdk/): a plugin written with it —
// typed kernels, the host-memory device base, the BP_SDK_PLUGIN entry point — registered
// in-process through the real C ABI, and every way its error handling must hold: sdk::Error,
// foreign exceptions, wrong argument tags, wrong arity, a throwing init, a refused
// registration, a device without hardware.
#include <backplane/backplane.hpp>
#include <backplane/sdk/sdk.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sdk = bp::sdk;

namespace {

// ---- kernels of the test plugin "sdkdev" --------------------------------------------------
void add_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha, sdk::TensorArg out) {
  const float a = alpha.to<float>();
  sdk::map<float>(
      out, [a](float x, float y) { return x + a * y; }, self, other);
}

// relu with the context parameter: records the op name it was called for.
std::string g_last_op;
void relu_f32(const sdk::KernelContext& ctx, sdk::TensorArg self, sdk::TensorArg out) {
  g_last_op = ctx.op_name();
  sdk::map<float>(
      out, [](float x) { return x > 0 ? x : 0.0f; }, self);
}

// Fails like a real kernel that validates its input.
bp_status mul_fails(sdk::TensorArg, sdk::TensorArg, sdk::TensorArg) {
  throw sdk::Error(BP_ERR_INDEX, "sdkdev: index 9 out of range");
}
// Throws something that is not an sdk::Error.
void sub_throws(sdk::TensorArg, sdk::TensorArg, sdk::Scalar, sdk::TensorArg) {
  throw std::runtime_error("a foreign exception");
}
// Registered for neg with a wrong signature: argument 0 is a tensor, not a scalar.
void neg_wrong_tag(sdk::Scalar, sdk::TensorArg) {}
// Registered for exp with a wrong arity.
void exp_wrong_arity(sdk::TensorArg) {}

sdk::HostMemoryDevice g_device("SDK test device", "Backplane tests", BP_DTYPE_BIT(BP_DTYPE_F32));

void init_sdkdev(sdk::Host& host, std::string_view) {
  const uint32_t backend = host.register_backend("sdkdev", g_device);
  host.kernels(backend)
      .kernel<add_f32>("add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32))
      .kernel<relu_f32>("relu", BP_DTYPE_BIT(BP_DTYPE_F32))
      .kernel<mul_fails>("mul.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32))
      .kernel<sub_throws>("sub.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32))
      .kernel<neg_wrong_tag>("neg", BP_DTYPE_BIT(BP_DTYPE_F32))
      .kernel<exp_wrong_arity>("exp", BP_DTYPE_BIT(BP_DTYPE_F32));
}

}  // namespace

BP_SDK_PLUGIN("sdkdev", "1.2.3", "Backplane tests", init_sdkdev, nullptr)

namespace {

bp::Device sdk_device() {
  static const bp::Device device = [] {
    const bp::PluginLoadReport r = bp::register_plugin(bp_plugin_query(), "test_sdk.cpp");
    INFO(r.message);
    REQUIRE(r.status == bp::LoadStatus::Loaded);
    for (const bp::BackendInfo& b : bp::backends())
      if (b.name == "sdkdev") return bp::Device{b.type, 0};
    FAIL("backend sdkdev not registered");
    return bp::Device{};
  }();
  return device;
}

// Runs f, which must throw bp::Error whose message contains every part.
template <typename F>
void check_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    FAIL("no error was raised");
  } catch (const bp::Error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    for (const char* part : parts) CHECK(what.find(part) != std::string::npos);
  }
}

bp_plugin_descriptor descriptor_with_init(const char* name,
                                          bp_status (*init)(const bp_host_api*, const char*)) {
  return bp_plugin_descriptor{
      sizeof(bp_plugin_descriptor), BP_ABI_MAJOR, BP_ABI_MINOR, name, "0", "tests", init, nullptr};
}

}  // namespace

TEST_CASE("a typed kernel unpacks tensors and scalars, strided inputs included") {
  const bp::Device dev = sdk_device();
  const bp::Tensor a = bp::tensor<float>({1, 2, 3, 4, 5, 6}, dev).view({2, 3});
  const bp::Tensor b = bp::tensor<float>({10, 20, 30, 40, 50, 60}, dev).view({3, 2}).t();
  CHECK(bp::to_vector<float>(bp::add(a, b, 2)) == std::vector<float>{21, 62, 103, 44, 85, 126});
}

TEST_CASE("a kernel may ask for its context") {
  const bp::Tensor x = bp::tensor<float>({-1, 2}, sdk_device());
  CHECK(bp::to_vector<float>(bp::relu(x)) == std::vector<float>{0, 2});
  CHECK(g_last_op == "relu");
}

TEST_CASE("sdk::Error thrown by a kernel reaches the caller with its code and message") {
  const bp::Tensor x = bp::tensor<float>({1}, sdk_device());
  try {
    bp::mul(x, x);
    FAIL("no error");
  } catch (const bp::Error& e) {
    CHECK(std::string(e.what()).find("sdkdev: index 9 out of range") != std::string::npos);
    CHECK(std::string(e.what()).find("mul") != std::string::npos);
  }
}

TEST_CASE("a foreign exception is caught at the boundary and reported as internal") {
  const bp::Tensor x = bp::tensor<float>({1}, sdk_device());
  check_error([&] { bp::sub(x, x); }, {"a foreign exception"});
}

TEST_CASE("an argument of the wrong kind names the op, the position and both kinds") {
  const bp::Tensor x = bp::tensor<float>({1}, sdk_device());
  check_error([&] { bp::neg(x); }, {"neg: argument 0 is a tensor", "expects a scalar"});
}

TEST_CASE("a kernel whose arity differs from the call says both counts") {
  const bp::Tensor x = bp::tensor<float>({1}, sdk_device());
  check_error([&] { bp::exp(x); }, {"exp: the runtime passed 2 arguments, the kernel takes 1"});
}

TEST_CASE("the host-memory device allocates, copies and describes itself") {
  const bp::Device dev = sdk_device();
  const bp::DeviceInfo info = bp::device_info(dev);
  CHECK(info.name == "SDK test device");
  CHECK(info.vendor == "Backplane tests");
  CHECK(info.host_accessible);
  CHECK(info.dtypes == BP_DTYPE_BIT(BP_DTYPE_F32));
  const bp::Tensor empty = bp::empty({0}, bp::ScalarType::Float32, dev);
  CHECK(empty.numel() == 0);
  const bp::Tensor big =
      bp::full({1 << 16}, 3.0, bp::ScalarType::Float32, bp::Device{bp::device_types::Reference, 0});
  CHECK(bp::to_vector<float>(bp::to(big, dev))[12345] == 3.0f);
}

TEST_CASE("device properties reach a caller only as far as its struct_size (ABI 1.0 runtime)") {
  struct WithArchitecture : sdk::HostMemoryDevice {
    WithArchitecture() : HostMemoryDevice("arch device", "tests") {}
    void properties(int32_t index, bp_device_props& out) override {
      HostMemoryDevice::properties(index, out);
      set_text(out.architecture, "arch9");  // ABI 1.1
    }
  } device;
  // A 1.1 runtime gets every member.
  bp_device_props full{};
  full.struct_size = sizeof full;
  REQUIRE(sdk::detail::device_properties(&device, 0, &full) == BP_OK);
  CHECK(std::string(full.architecture) == "arch9");
  CHECK(full.struct_size == sizeof full);
  // A 1.0 runtime passes the struct up to dtypes: nothing past it is written.
  struct {
    bp_device_props props;
    unsigned char guard[sizeof(bp_device_props)];
  } old{};
  const size_t v1_0 = offsetof(bp_device_props, architecture);
  std::memset(reinterpret_cast<unsigned char*>(&old) + v1_0, 0xAB, sizeof old - v1_0);
  old.props.struct_size = v1_0;
  REQUIRE(sdk::detail::device_properties(&device, 0, &old.props) == BP_OK);
  CHECK(old.props.struct_size == v1_0);
  CHECK(std::string(old.props.name) == "arch device");
  for (size_t i = v1_0; i < sizeof old; ++i)
    REQUIRE(reinterpret_cast<unsigned char*>(&old)[i] == 0xAB);
}

TEST_CASE("an init that throws is a failed load carrying the exception's message") {
  bp_plugin_descriptor d = descriptor_with_init(
      "sdk_throws", +[](const bp_host_api* api, const char* options) {
        return sdk::detail::run_init(api, options, [](sdk::Host&, std::string_view) {
          throw sdk::Error(BP_ERR_DEVICE, "firmware too old");
        });
      });
  const bp::PluginLoadReport r = bp::register_plugin(&d, "sdk_throws");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("firmware too old") != std::string::npos);
}

TEST_CASE("a refused kernel registration keeps the host's message") {
  bp_plugin_descriptor d = descriptor_with_init(
      "sdk_unknown_op", +[](const bp_host_api* api, const char* options) {
        return sdk::detail::run_init(api, options, [](sdk::Host& host, std::string_view) {
          static sdk::HostMemoryDevice device("x", "y");
          const uint32_t backend = host.register_backend("sdk_unknown_op_dev", device);
          host.kernels(backend).kernel<exp_wrong_arity>("no_such_op", BP_DTYPES_ALL);
        });
      });
  const bp::PluginLoadReport r = bp::register_plugin(&d, "sdk_unknown_op");
  CHECK(r.status == bp::LoadStatus::Failed);
  CAPTURE(r.message);
  CHECK(r.message.find("no_such_op") != std::string::npos);
}

TEST_CASE("a device with no hardware gives a no-devices report with its reason") {
  struct Absent : sdk::HostMemoryDevice {
    Absent() : HostMemoryDevice("absent", "tests") {}
    int32_t device_count(const char** reason) override {
      *reason = "no Acme card on the PCI bus";
      return 0;
    }
  };
  bp_plugin_descriptor d = descriptor_with_init(
      "sdk_absent", +[](const bp_host_api* api, const char* options) {
        return sdk::detail::run_init(api, options, [](sdk::Host& host, std::string_view) {
          static Absent device;
          host.register_backend("sdk_absent_dev", device);
        });
      });
  const bp::PluginLoadReport r = bp::register_plugin(&d, "sdk_absent");
  CHECK(r.status == bp::LoadStatus::NoDevices);
  CHECK(r.message.find("no Acme card on the PCI bus") != std::string::npos);
}

TEST_CASE("Scalar converts like a C++ cast, f16 and bool included") {
  bp_value v{};
  v.tag = BP_VALUE_FLOAT;
  v.u.f = -2.75;
  const sdk::Scalar s(v);
  CHECK(s.to<int32_t>() == -2);
  CHECK(s.to<bool>());
  CHECK(static_cast<float>(s.to<sdk::Half>()) == -2.75f);
  v.tag = BP_VALUE_INT;
  v.u.i = 1LL << 40;
  CHECK(sdk::Scalar(v).to<double>() == 1099511627776.0);
}

TEST_CASE("for_each_index visits 0-d once, empty never, and in row-major order") {
  int calls = 0;
  sdk::for_each_index({}, [&](const int64_t*) { ++calls; });
  CHECK(calls == 1);
  const int64_t empty[] = {3, 0};
  sdk::for_each_index(empty, [&](const int64_t*) { ++calls; });
  CHECK(calls == 1);
  const int64_t shape[] = {2, 2};
  std::vector<int64_t> seen;
  sdk::for_each_index(shape, [&](const int64_t* i) { seen.push_back(i[0] * 10 + i[1]); });
  CHECK(seen == std::vector<int64_t>{0, 1, 10, 11});
}
