// Which Backplane device each PyTorch PrivateUse1 index stands for ("privateuseone:N" is
// the N-th entry), and the PrivateUse1 index current on this thread (what the
// DeviceGuardImpl sets and the allocator allocates on). The default mapping is every
// device the runtime's selector admits, the default device first (docs/pytorch.md,
// "Devices"); set_devices replaces it. Thread-safe: readers take no lock.
#pragma once

#include <backplane/core/device.hpp>

#include <c10/core/Device.h>

#include <string>
#include <vector>

namespace bp::torch_bridge {

// The most PrivateUse1 indices the bridge maps (PyTorch's DeviceIndex is an int8_t).
inline constexpr int kMaxDevices = 64;

// The current mapping, index order.
std::vector<Device> mapped_devices();
int mapped_device_count();

// Replaces the mapping. Each entry must be a distinct device the runtime has (throws
// bp::Error naming the entry otherwise); the mapping is unchanged on error.
void set_mapped_devices(const std::vector<Device>& devices);

// The Backplane device of a PrivateUse1 index; throws c10::Error naming the index and the
// mapping when it has no entry.
Device backplane_device(c10::DeviceIndex index);
// The PrivateUse1 index of a Backplane device; throws c10::Error when it is not mapped.
c10::DeviceIndex torch_index(Device device);

// The current PrivateUse1 index of this thread (0 until a guard sets another).
c10::DeviceIndex current_index();
void set_current_index(c10::DeviceIndex index);

// "privateuseone:0 -> cpu:0, privateuseone:1 -> opencl:0" (for messages).
std::string describe_mapping();

}  // namespace bp::torch_bridge
