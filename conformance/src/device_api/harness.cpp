// The device-API checks' harness (harness.hpp): status and copy names for messages, byte
// patterns, and the byte comparison.
#include "harness.hpp"

namespace bp::conformance::device_api {

const char* status_name(bp_status s) {
  switch (s) {
    case BP_OK:
      return "BP_OK";
    case BP_ERR_INVALID_ARGUMENT:
      return "BP_ERR_INVALID_ARGUMENT";
    case BP_ERR_UNSUPPORTED:
      return "BP_ERR_UNSUPPORTED";
    case BP_ERR_OUT_OF_MEMORY:
      return "BP_ERR_OUT_OF_MEMORY";
    case BP_ERR_DEVICE:
      return "BP_ERR_DEVICE";
    case BP_ERR_INDEX:
      return "BP_ERR_INDEX";
    case BP_ERR_INTERNAL:
      return "BP_ERR_INTERNAL";
    case BP_ERR_NOT_FOUND:
      return "BP_ERR_NOT_FOUND";
    case BP_ERR_NO_DEVICE:
      return "BP_ERR_NO_DEVICE";
    default:
      return "unknown status";
  }
}

std::string status_str(bp_status s) {
  return fmt::format("status {} ({})", s, status_name(s));
}

const char* kind_name(bp_copy_kind kind) {
  switch (kind) {
    case BP_COPY_HOST_TO_DEVICE:
      return "host-to-device";
    case BP_COPY_DEVICE_TO_HOST:
      return "device-to-host";
    default:
      return "device-to-device";
  }
}

Bytes pattern(size_t n, uint32_t seed) {
  Bytes out(n);
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = static_cast<unsigned char>(x >> 11);
  }
  return out;
}

Bytes complement(const Bytes& b) {
  Bytes out(b.size());
  for (size_t i = 0; i < b.size(); ++i) out[i] = static_cast<unsigned char>(~b[i]);
  return out;
}

std::string stream_str(void* stream) {
  return stream ? fmt::format("stream {}", fmt::ptr(stream)) : std::string("default stream");
}

void expect_bytes(const Bytes& got, const Bytes& want, size_t begin, size_t end,
                  std::string_view after, std::string_view what) {
  size_t bad = 0;
  size_t first = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (bad++ == 0) first = i;
  }
  if (bad == 0) return;
  std::string where;
  if (first < begin) {
    where =
        fmt::format("{} bytes before the copied range (written, must be untouched)", begin - first);
  } else if (first >= end) {
    where = fmt::format("{} bytes after the end of the copied range (written, must be untouched)",
                        first - end);
  } else if (first == end - 1) {
    where = fmt::format("the last byte of the copied range (byte {} of {})", first - begin,
                        end - begin);
  } else {
    where = fmt::format("byte {} of the {}-byte copied range", first - begin, end - begin);
  }
  fail(fmt::format("after {}: {} byte {} is 0x{:02x}, expected 0x{:02x}: {}; {} of {} bytes wrong",
                   after, what, first, got[first], want[first], where, bad, got.size()));
}

}  // namespace bp::conformance::device_api
