// Device copies of conformance inputs and outputs inside buffers fenced by guard bytes.
// A tensor on the device under test gets the sizes, strides and storage offset of its
// reference twin, in a storage that has `guard` elements of a known byte pattern on each
// side; afterwards every byte the tensor's elements do not cover is checked, so a kernel
// that writes past its output, into the gaps of a strided view, or into an input is caught
// and named.
#pragma once

#include "backplane/conformance/compare.hpp"  // kGuardByte

#include <backplane/backplane.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bp::conformance::detail {

// Storage elements a view reaches: offset + the last element's position + 1 (the offset
// alone for an empty view).
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, int64_t offset);

class GuardedBuffer {
 public:
  // A copy of `source` (any device, any layout) on `device`, with the same strides and
  // offset inside a guarded storage.
  static GuardedBuffer copy_of(const Tensor& source, Device device);
  // A fresh contiguous tensor of `sizes`/`dtype` on `device`, every byte kGuardByte.
  static GuardedBuffer fresh(IntArrayRef sizes, ScalarType dtype, Device device);

  const Tensor& tensor() const { return view_; }
  Tensor& tensor() { return view_; }

  // The tensor's values as the device holds them, read through the device API alone: the
  // plugin's device-to-host copy of the whole guarded storage, viewed on `host` (the
  // reference device) with the tensor's sizes, strides and offset. No kernel of the device
  // under test runs, so a plugin is never checked with its own copy_.
  Tensor read_back(Device host) const;

  // Checks the guards and, when `written` is false, that no byte of the storage changed;
  // when true, only the bytes the view's elements cover may change. Returns "" or a
  // message naming `what` ("output 'out'", "input 'self'") and the first changed byte.
  std::string check(const std::string& what, bool written) const;

 private:
  GuardedBuffer(Tensor base, Tensor view, int64_t guard, std::vector<uint8_t> before);
  Tensor base_;
  Tensor view_;
  int64_t guard_ = 0;            // elements before (and after) the data region
  std::vector<uint8_t> before_;  // every byte of base_ as it was written
};

}  // namespace bp::conformance::detail
