// libFuzzer target: tensor descriptors that come into the runtime from outside. Plugins
// never hand tensors back (the runtime allocates every output), so the descriptors Backplane
// takes on trust are DLPack imports: bp::from_dlpack (dispatch/src/dlpack.cpp) over a
// DLManagedTensor whose every field comes from the input: ndim (negative, huge), shape
// (negative, overflowing element counts), strides (NULL, negative, huge), dtype code, bits
// and lanes, device type, byte offset and a NULL or real data pointer.
//
// A bp::Error is the expected answer to a descriptor the runtime cannot take, and then the
// caller keeps ownership (the deleter must not have run). A bug is anything else: a crash, a
// sanitizer report (reading past a shape array of ndim entries, signed overflow in the
// extent), another exception type, an accepted tensor whose metadata differs from the
// descriptor, a view that reaches outside the memory the descriptor describes (read here
// element by element, and copied by bp::contiguous, under ASan), or a deleter that runs
// early, twice or never.
#include <backplane/backplane.hpp>
#include <backplane/core/error.hpp>
#include <backplane/dlpack.hpp>

#include <dlpack/dlpack.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

// Shape and stride arrays are allocated with ndim entries up to this many; a larger ndim
// gets arrays of this length, so a runtime that reads ndim entries before refusing an
// absurd ndim reads past them (which ASan reports).
constexpr int32_t kMaxArray = 4096;
// Descriptors spanning at most this many bytes get a real buffer of exactly that size.
constexpr __int128 kMaxBuffer = 1 << 20;

struct Owner {
  int deleted = 0;
};

int32_t pick_ndim(FuzzedDataProvider& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return -1;
    case 1:
      return std::numeric_limits<int32_t>::min();
    case 2:
      return std::numeric_limits<int32_t>::max();
    case 3:
      return p.ConsumeIntegral<int32_t>();
    case 4:
      return p.ConsumeIntegralInRange<int32_t>(7, 2 * kMaxArray);
    default:
      return p.ConsumeIntegralInRange<int32_t>(0, 6);
  }
}

int64_t pick_extent(FuzzedDataProvider& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return p.ConsumeIntegral<int64_t>();
    case 1:
      return std::numeric_limits<int64_t>::max() - p.ConsumeIntegralInRange<int64_t>(0, 2);
    case 2:
      return -p.ConsumeIntegralInRange<int64_t>(1, 3);
    case 3:
      return int64_t{1} << p.ConsumeIntegralInRange<int>(20, 62);
    default:
      return p.ConsumeIntegralInRange<int64_t>(0, 5);
  }
}

DLDataType pick_dtype(FuzzedDataProvider& p) {
  static const DLDataType kValid[] = {{kDLFloat, 32, 1},  {kDLFloat, 64, 1}, {kDLFloat, 16, 1},
                                      {kDLBfloat, 16, 1}, {kDLInt, 8, 1},    {kDLInt, 64, 1},
                                      {kDLUInt, 8, 1},    {6, 8, 1}};
  if (p.ConsumeBool()) return kValid[p.ConsumeIntegralInRange<size_t>(0, std::size(kValid) - 1)];
  return {p.ConsumeIntegral<uint8_t>(), p.ConsumeIntegral<uint8_t>(),
          p.ConsumeIntegral<uint16_t>()};
}

// The bytes from `data` that the descriptor says it spans, or -1 when it says something no
// honest producer says (negative sizes or strides, an unknown dtype).
__int128 span_bytes(int32_t ndim, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& strides, bool has_strides, uint64_t byte_offset,
                    int64_t elsize) {
  if (ndim < 0 || ndim > kMaxArray || elsize <= 0) return -1;
  __int128 numel = 1;
  __int128 last = 0;
  __int128 stride = 1;
  for (int32_t d = ndim; d-- > 0;) {
    const int64_t size = shape[static_cast<size_t>(d)];
    const int64_t st = has_strides ? strides[static_cast<size_t>(d)] : static_cast<int64_t>(stride);
    if (size < 0 || st < 0) return -1;
    numel = size == 0 || numel == 0 ? 0 : std::min<__int128>(numel * size, kMaxBuffer + 1);
    last += std::min<__int128>(static_cast<__int128>(size > 0 ? size - 1 : 0) * st, kMaxBuffer + 1);
    stride = std::min<__int128>(stride * std::max<int64_t>(size, 1), kMaxBuffer + 1);
  }
  if (numel == 0) return byte_offset;
  return static_cast<__int128>(byte_offset) + (last + 1) * elsize;
}

int64_t element_bytes(DLDataType t) {
  if (t.lanes != 1 || t.bits % 8 != 0 || t.bits == 0) return -1;
  return t.bits / 8;
}

// Reads every element of `t` through its sizes, strides and offset (ASan checks each read).
void touch_every_element(const bp::Tensor& t) {
  if (t.numel() == 0 || t.numel() > 65536) return;
  const auto* base = static_cast<const volatile unsigned char*>(t.storage()->data());
  const size_t n = static_cast<size_t>(t.dim());
  std::vector<int64_t> index(n, 0);
  unsigned sum = 0;
  for (int64_t k = 0; k < t.numel(); ++k) {
    int64_t offset = t.storage_offset();
    for (size_t d = 0; d < n; ++d) offset += index[d] * t.strides()[d];
    for (size_t b = 0; b < t.element_size(); ++b)
      sum += base[static_cast<size_t>(offset) * t.element_size() + b];
    for (size_t d = n; d-- > 0;) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
  (void)sum;
}

// What the input describes: a DLPack descriptor's fields, read in a fixed order.
struct Described {
  int32_t ndim = 0;
  size_t entries = 0;  // elements of shape and strides (ndim, clamped)
  std::vector<int64_t> shape, strides;
  bool has_strides = false;
  DLDataType dtype{};
  DLDevice device{kDLCPU, 0};
  uint64_t byte_offset = 0;
  bool null_data = false;
};

Described describe_input(FuzzedDataProvider& p) {
  Described d;
  d.ndim = pick_ndim(p);
  d.entries = static_cast<size_t>(std::clamp<int32_t>(d.ndim, 0, kMaxArray));
  d.shape.resize(d.entries);
  d.strides.resize(d.entries);
  d.has_strides = p.ConsumeBool();
  for (size_t i = 0; i < d.entries; ++i) {
    // Dims past the eighth are 1 with stride 1: a large ndim must not use up the input
    // before the dtype and device are read (an exhausted input gives an invalid dtype, and
    // every large-ndim input would stop there).
    if (i >= 8) {
      d.shape[i] = 1;
      d.strides[i] = 1;
      continue;
    }
    d.shape[i] = pick_extent(p);
    d.strides[i] = p.ConsumeBool() ? p.ConsumeIntegralInRange<int64_t>(0, 8) : pick_extent(p);
  }
  d.dtype = pick_dtype(p);
  // Any int32 as the device type, written as memory (as a C producer would), not converted
  // to the enum, which C++ only allows for the enum's values.
  if (p.ConsumeIntegralInRange<int>(0, 7) == 0) {
    const int32_t type = p.ConsumeIntegral<int32_t>();
    static_assert(sizeof type == sizeof d.device.device_type);
    std::memcpy(&d.device.device_type, &type, sizeof type);
    d.device.device_id = p.ConsumeIntegral<int32_t>();
  }
  d.byte_offset = p.ConsumeBool() ? p.ConsumeIntegralInRange<uint64_t>(0, 8) * 8
                                  : p.ConsumeIntegral<uint64_t>();
  d.null_data = p.ConsumeIntegralInRange<int>(0, 7) == 0;
  return d;
}

// An imported tensor is what the descriptor said; over an honest buffer, every element can
// be read and the tensor survives an export and a second import.
void check_imported(const bp::Tensor& t, const Described& d, bool honest) {
  FUZZ_CHECK(t.dim() == d.ndim,
             "ndim " + std::to_string(d.ndim) + " became " + std::to_string(t.dim()));
  for (size_t i = 0; i < d.entries; ++i) {
    FUZZ_CHECK(t.sizes()[i] == d.shape[i], "size of dim " + std::to_string(i) + " changed");
    if (d.has_strides)
      FUZZ_CHECK(t.strides()[i] == d.strides[i], "stride of dim " + std::to_string(i) + " changed");
  }
  FUZZ_CHECK(!d.null_data || t.numel() == 0, "a non-empty tensor over NULL data");
  FUZZ_CHECK(static_cast<uint64_t>(t.storage_offset()) * t.element_size() == d.byte_offset,
             "storage offset does not match byte_offset " + std::to_string(d.byte_offset));
  if (!honest) return;
  // The view must lie inside what the producer described: read it all, then copy it.
  touch_every_element(t);
  if (t.numel() <= 4096) {
    const bp::Tensor c = bp::contiguous(t);
    FUZZ_CHECK(c.sizes() == t.sizes(), "contiguous() changed the shape");
  }
  // And back out and in again: the export of an import is the same tensor.
  DLManagedTensor* out = bp::to_dlpack(t);
  bp::Tensor again = bp::from_dlpack(out);
  FUZZ_CHECK(again.sizes() == t.sizes() && again.strides() == t.strides() &&
                 again.storage_offset() == t.storage_offset() && again.dtype() == t.dtype(),
             "to_dlpack -> from_dlpack changed the tensor");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  Described d = describe_input(p);
  // An honest producer: a buffer of exactly the bytes the descriptor spans.
  const __int128 span =
      span_bytes(d.ndim, d.shape, d.strides, d.has_strides, d.byte_offset, element_bytes(d.dtype));
  const bool honest = span >= 0 && span <= kMaxBuffer && !d.null_data;
  std::vector<unsigned char> buffer(honest ? static_cast<size_t>(span) + 1 : 16);

  Owner owner;
  DLManagedTensor managed{};
  managed.dl_tensor.data = d.null_data ? nullptr : buffer.data();
  managed.dl_tensor.device = d.device;
  managed.dl_tensor.ndim = d.ndim;
  managed.dl_tensor.dtype = d.dtype;
  managed.dl_tensor.shape = d.entries ? d.shape.data() : nullptr;
  managed.dl_tensor.strides = d.has_strides && d.entries ? d.strides.data() : nullptr;
  managed.dl_tensor.byte_offset = d.byte_offset;
  managed.manager_ctx = &owner;
  managed.deleter = [](DLManagedTensor* self) {
    ++static_cast<Owner*>(self->manager_ctx)->deleted;
  };

  {
    bp::Tensor t;
    try {
      t = bp::from_dlpack(&managed);
    } catch (const bp::Error&) {
      FUZZ_CHECK(owner.deleted == 0, "from_dlpack failed but called the deleter");
      return 0;
    }
    FUZZ_CHECK(owner.deleted == 0, "from_dlpack called the deleter of a tensor it returned");
    check_imported(t, d, honest);
  }
  // bp::contiguous leaves blocks cached on the reference device, which by design are not
  // freed at exit (docs/allocator.md) and LeakSanitizer would report: each input leaves none.
  bp::empty_cache();
  FUZZ_CHECK(owner.deleted == 1, "the deleter ran " + std::to_string(owner.deleted) +
                                     " times after the last tensor went away");
  return 0;
}
