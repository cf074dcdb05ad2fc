// PyTorch's DeviceGuardImpl for PrivateUse1: which privateuseone index is current on this
// thread. Backplane calls name their device explicitly, so the current index only decides
// where PyTorch's own allocations land (torch.empty without an index, the allocator). One
// stream per device: Backplane orders a device's work itself, so PyTorch sees the default
// stream only.
#include "device_map.hpp"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

namespace bp::torch_bridge {
namespace {

class BackplaneGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device previous = getDevice();
    setDevice(device);
    return previous;
  }
  c10::Device getDevice() const override {
    return c10::Device(c10::DeviceType::PrivateUse1, current_index());
  }
  void setDevice(c10::Device device) const override {
    TORCH_CHECK(device.type() == c10::DeviceType::PrivateUse1,
                "backplane.torch: the PrivateUse1 device guard was given ", device.str());
    TORCH_CHECK(device.index() >= 0 && device.index() < mapped_device_count(),
                "backplane.torch: ", device.str(), " is not mapped to a Backplane device (",
                describe_mapping(), ")");
    set_current_index(device.index());
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    set_current_index(device.index());
  }
  c10::Stream getStream(c10::Device device) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, device);
  }
  c10::Stream exchangeStream(c10::Stream stream) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, stream.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(mapped_device_count());
  }
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, BackplaneGuardImpl);

}  // namespace bp::torch_bridge
