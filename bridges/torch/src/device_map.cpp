// The PrivateUse1 index <-> Backplane device mapping (device_map.hpp). Entries are packed
// into one atomic word each so that readers (every kernel call) take no lock; writers
// (set_devices, rare) serialise on a mutex.
#include "device_map.hpp"

#include <backplane/core/error.hpp>

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <mutex>

namespace bp::torch_bridge {
namespace {

uint32_t pack(Device d) {
  return (uint32_t{d.type} << 16) | static_cast<uint16_t>(d.index);
}
Device unpack(uint32_t word) {
  return Device(static_cast<DeviceType>(word >> 16), static_cast<int16_t>(word & 0xffff));
}

std::array<std::atomic<uint32_t>, kMaxDevices> g_entries{};
std::atomic<int> g_count{0};
std::mutex g_write_mutex;
thread_local c10::DeviceIndex t_current = 0;

}  // namespace

std::vector<Device> mapped_devices() {
  std::vector<Device> out;
  const int n = g_count.load(std::memory_order_acquire);
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(unpack(g_entries[i].load(std::memory_order_relaxed)));
  return out;
}

int mapped_device_count() {
  return g_count.load(std::memory_order_acquire);
}

void set_mapped_devices(const std::vector<Device>& devices) {
  BP_CHECK(devices.size() <= kMaxDevices, ErrorCode::InvalidArgument,
           "backplane.torch: {} devices given; PyTorch's PrivateUse1 takes at most {}",
           devices.size(), kMaxDevices);
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      BP_CHECK(!(devices[i] == devices[j]), ErrorCode::InvalidArgument,
               "backplane.torch: device {} is listed twice (entries {} and {})", devices[i].str(),
               j, i);
  std::lock_guard lock(g_write_mutex);
  // Shrink first, so that a reader never sees an index whose entry is being rewritten.
  g_count.store(0, std::memory_order_release);
  for (size_t i = 0; i < devices.size(); ++i)
    g_entries[i].store(pack(devices[i]), std::memory_order_relaxed);
  g_count.store(static_cast<int>(devices.size()), std::memory_order_release);
}

Device backplane_device(c10::DeviceIndex index) {
  const int n = g_count.load(std::memory_order_acquire);
  TORCH_CHECK(index >= 0 && index < n, "backplane.torch: privateuseone:", int{index},
              " is not mapped to a Backplane device (", describe_mapping(), ")");
  return unpack(g_entries[index].load(std::memory_order_relaxed));
}

c10::DeviceIndex torch_index(Device device) {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (g_entries[i].load(std::memory_order_relaxed) == pack(device))
      return static_cast<c10::DeviceIndex>(i);
  TORCH_CHECK(false, "backplane.torch: Backplane device ", device.str(),
              " has no privateuseone index (", describe_mapping(), ")");
}

c10::DeviceIndex current_index() {
  return t_current;
}
void set_current_index(c10::DeviceIndex index) {
  t_current = index;
}

std::string describe_mapping() {
  const std::vector<Device> devices = mapped_devices();
  if (devices.empty()) return "no device is mapped";
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i)
    text += fmt::format("{}privateuseone:{} -> {}", i ? ", " : "", i, devices[i].str());
  return text;
}

}  // namespace bp::torch_bridge
