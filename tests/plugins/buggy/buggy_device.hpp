// The device of the buggy fixture plugins: host memory (sdk::HostMemoryDevice), correct for
// every plugin but buggy_device, whose device API has the two bugs the conformance suite's
// device-API checks (conformance/src/device_checks.cpp, device_api/) must catch:
//   - alloc ignores the requested alignment: like many simple allocators it keeps the
//     block's size in an 8-byte header in front of the block, so every pointer it returns
//     is 8 bytes past a malloc'd (16-byte aligned) one: aligned to 8, never to 16 or more;
//   - a device-to-host copy drops the last byte (an off-by-one in the length).
// The device reports itself host-accessible, so the runtime moves tensor data with memcpy
// and the op cases stay correct: only the device-API checks see these bugs.
#pragma once

#include <backplane/sdk/sdk.hpp>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace bp_buggy {

class BuggyDevice : public bp::sdk::HostMemoryDevice {
 public:
  BuggyDevice(std::string name, bool device_bugs)
      : HostMemoryDevice(std::move(name), "Backplane tests"), device_bugs_(device_bugs) {}

  void* allocate(int32_t index, size_t bytes, size_t alignment) override {
    if (!device_bugs_) return HostMemoryDevice::allocate(index, bytes, alignment);
    if (index != 0) throw bp::sdk::Error(BP_ERR_INVALID_ARGUMENT, "one device (index 0)");
    auto* block = static_cast<char*>(std::malloc(kHeader + bytes));
    if (block == nullptr) throw bp::sdk::Error(BP_ERR_OUT_OF_MEMORY, "out of memory");
    std::memcpy(block, &bytes, sizeof bytes);
    return block + kHeader;  // `alignment` is never looked at
  }
  void deallocate(int32_t index, void* ptr) override {
    if (!device_bugs_) return HostMemoryDevice::deallocate(index, ptr);
    if (ptr != nullptr) std::free(static_cast<char*>(ptr) - kHeader);
  }
  void copy(int32_t index, bp_copy_kind kind, void* dst, const void* src, size_t bytes,
            void* stream) override {
    if (device_bugs_ && kind == BP_COPY_DEVICE_TO_HOST && bytes > 0) --bytes;  // off by one
    HostMemoryDevice::copy(index, kind, dst, src, bytes, stream);
  }

 private:
  static constexpr size_t kHeader = sizeof(size_t);
  bool device_bugs_;
};

}  // namespace bp_buggy
