// The CPU plugin as a loadable plugin: it loads from the build tree, registers the "cpu"
// backend with one host-accessible device, and moves data to and from it.
#include "cpu_checks.hpp"

namespace bp::test {

TEST_CASE("the cpu plugin loads and registers one host-accessible device") {
  const Device cpu = cpu_device();
  const DeviceInfo info = device_info(cpu);
  CHECK(info.host_accessible);
  CHECK(info.total_memory > 0);
  CHECK(info.compute_units >= 1);
  CHECK(info.dtypes == BP_DTYPES_ALL);
  CHECK(!info.name.empty());
}

TEST_CASE("tensors round-trip between the reference and cpu devices") {
  const Tensor ref = random_tensor({5, 7}, ScalarType::Float32, 1, kRefDevice);
  const Tensor cpu = on(ref, cpu_device());
  CHECK(cpu.device() == cpu_device());
  check_same(on(cpu, kRefDevice), ref, 0.0, 0.0);
}

}  // namespace bp::test
