// Guarded device buffers (guarded_buffer.hpp).
#include "guarded_buffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace bp::conformance::detail {
namespace {

int64_t guard_elements(ScalarType dtype) {
  // 64 bytes, and never fewer than 16 elements: wide enough for a vector store past the end.
  return std::max<int64_t>(16, 64 / static_cast<int64_t>(element_size(dtype)));
}

// Marks the storage elements a view covers.
void mark_covered(IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                  std::vector<bool>& covered) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = offset;
    for (size_t d = 0; d < sizes.size(); ++d) pos += index[d] * strides[d];
    covered[static_cast<size_t>(pos)] = true;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

// The bytes of a contiguous tensor of the device under test: copy_to_host of a contiguous
// tensor in its own dtype is the plugin's device-to-host copy, no kernel.
std::vector<uint8_t> read_bytes(const Tensor& base) {
  std::vector<uint8_t> bytes(base.nbytes());
  if (!bytes.empty()) copy_to_host(base, bytes.data(), base.dtype());
  return bytes;
}

}  // namespace

int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return offset;
    last += (sizes[d] - 1) * strides[d];
  }
  return offset + last + 1;
}

GuardedBuffer::GuardedBuffer(Tensor base, Tensor view, int64_t guard, std::vector<uint8_t> before)
    : base_(std::move(base)), view_(std::move(view)), guard_(guard), before_(std::move(before)) {}

GuardedBuffer GuardedBuffer::copy_of(const Tensor& source, Device device) {
  const ScalarType dtype = source.dtype();
  const size_t esize = element_size(dtype);
  const int64_t extent = storage_extent(source.sizes(), source.strides(), source.storage_offset());
  const int64_t guard = guard_elements(dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(extent + 2 * guard) * esize, kGuardByte);
  if (extent > 0) {
    // The source's storage from element 0 to its extent, raw, gaps included.
    const Tensor span = source.as_strided({extent}, {1}, 0);
    copy_to_host(span, bytes.data() + static_cast<size_t>(guard) * esize, dtype);
  }
  Tensor base = from_data(bytes.data(), dtype, {extent + 2 * guard}, device);
  Tensor view = base.as_strided(source.sizes(), source.strides(), guard + source.storage_offset());
  // A wrapped number (a Python scalar) promotes with the lowest priority: without the flag
  // the device would compute in another dtype than the reference did.
  view.set_wrapped_number(source.is_wrapped_number());
  return GuardedBuffer(std::move(base), std::move(view), guard, std::move(bytes));
}

GuardedBuffer GuardedBuffer::fresh(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const int64_t guard = guard_elements(dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(n + 2 * guard) * element_size(dtype), kGuardByte);
  Tensor base = from_data(bytes.data(), dtype, {n + 2 * guard}, device);
  Shape strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  Tensor view = base.as_strided(sizes, strides, guard);
  return GuardedBuffer(std::move(base), std::move(view), guard, std::move(bytes));
}

Tensor GuardedBuffer::read_back(Device host) const {
  const std::vector<uint8_t> bytes = read_bytes(base_);
  const Tensor storage = from_data(bytes.data(), base_.dtype(), {base_.numel()}, host);
  return storage.as_strided(view_.sizes(), view_.strides(), view_.storage_offset());
}

std::string GuardedBuffer::check(const std::string& what, bool written) const {
  const std::vector<uint8_t> after = read_bytes(base_);
  const size_t esize = element_size(base_.dtype());
  const int64_t elements = base_.numel();
  std::vector<bool> covered(static_cast<size_t>(elements), false);
  if (written) mark_covered(view_.sizes(), view_.strides(), view_.storage_offset(), covered);
  const int64_t data_end = elements - guard_;
  for (int64_t e = 0; e < elements; ++e) {
    if (covered[static_cast<size_t>(e)]) continue;
    const size_t at = static_cast<size_t>(e) * esize;
    if (std::memcmp(after.data() + at, before_.data() + at, esize) == 0) continue;
    if (e < guard_)
      return fmt::format(
          "{}: guard bytes before the buffer changed ({} element(s) before its "
          "storage start): the kernel wrote out of bounds",
          what, guard_ - e);
    if (e >= data_end)
      return fmt::format(
          "{}: guard bytes after the buffer changed (element {} past its storage "
          "end): the kernel wrote out of bounds",
          what, e - data_end);
    return fmt::format("{}: storage element {} changed{}", what, e - guard_,
                       written ? " although the view does not cover it (a gap of a strided or "
                                 "offset view)"
                               : " although the operator does not write this argument");
  }
  return {};
}

}  // namespace bp::conformance::detail
