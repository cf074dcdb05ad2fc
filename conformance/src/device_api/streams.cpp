// The device-API checks of streams: create and destroy, ordering on one stream, a stream
// against the default stream, and synchronize.
#include "checks.hpp"

namespace bp::conformance::device_api {

void check_streams_create_destroy(const Dev& dev) {
  const bool create = dev.api().stream_create != nullptr;
  const bool destroy = dev.api().stream_destroy != nullptr;
  if (create != destroy)
    fail(fmt::format("stream_create is {} but stream_destroy is {}: the two come together",
                     create ? "set" : "NULL", destroy ? "set" : "NULL"));
  if (!create) return;  // no streams: work is synchronous on the default stream
  std::vector<void*> streams;
  auto cleanup = [&] {
    for (void* s : streams) (void)dev.api().stream_destroy(dev.ctx(), dev.index(), s);
  };
  for (int i = 0; i < 4; ++i) {
    void* s = nullptr;
    const bp_status st = dev.api().stream_create(dev.ctx(), dev.index(), &s);
    if (st != BP_OK) {
      cleanup();
      fail(fmt::format("stream_create(index {}) returned {} with {} other streams alive",
                       dev.index(), status_str(st), streams.size()));
    }
    if (s == nullptr || std::find(streams.begin(), streams.end(), s) != streams.end()) {
      cleanup();
      fail(
          fmt::format("stream_create(index {}) returned {} with {} other streams alive (must be "
                      "non-NULL and distinct)",
                      dev.index(), fmt::ptr(s), streams.size()));
    }
    streams.push_back(s);
  }
  try {
    for (void* s : streams) dev.synchronize(s);  // an idle stream
  } catch (const CheckFailure&) {
    cleanup();
    throw;
  }
  while (!streams.empty()) {
    void* s = streams.back();
    streams.pop_back();
    const bp_status st = dev.api().stream_destroy(dev.ctx(), dev.index(), s);
    if (st != BP_OK) {
      cleanup();
      fail(fmt::format("stream_destroy(index {}, {}) returned {}", dev.index(), fmt::ptr(s),
                       status_str(st)));
    }
  }
}

// Several copies enqueued on one stream with no synchronisation between them, each one
// depending on the previous: the stream must run them in order.
void check_stream_ordering(const Dev& dev) {
  constexpr size_t kBytes = 64 * 1024 + 13;
  constexpr size_t kChunks = 8;
  const Bytes first = pattern(kBytes, 31);
  const Bytes second = pattern(kBytes, 32);
  Bytes got_b(kBytes), got_a(kBytes);
  Allocation a(dev, kBytes);
  Allocation b(dev, kBytes);
  // Declared last, so on a failure it is destroyed (and its pending copies done) before the
  // memory they touch is freed.
  Stream stream(dev);
  void* s = stream.get();
  const size_t chunk = (kBytes + kChunks - 1) / kChunks;
  // 1. a = first, in chunks; 2. b = a; 3. a's first chunk = second's; 4. host <- b, host2 <- a.
  for (size_t off = 0; off < kBytes; off += chunk) {
    const size_t len = std::min(chunk, kBytes - off);
    dev.copy(BP_COPY_HOST_TO_DEVICE, a.get() + off, first.data() + off, len, s,
             fmt::format("dst device a+{}, src host+{}", off, off));
  }
  dev.copy(BP_COPY_DEVICE_TO_DEVICE, b.get(), a.get(), kBytes, s, "dst device b, src device a");
  dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), second.data(), chunk, s, "dst device a, src host");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got_b.data(), b.get(), kBytes, s, "dst host, src device b");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got_a.data(), a.get(), kBytes, s, "dst host, src device a");
  dev.synchronize(s);
  const std::string after = fmt::format(
      "{} host-to-device copies into a, a device-to-device copy a -> b, a host-to-device copy "
      "over a's first {} bytes, device-to-host copies of b and a, all on {}, then synchronize",
      kChunks, chunk, stream_str(s));
  expect_bytes(got_b, first, 0, kBytes, after, "b (as read back by the stream's last copies)");
  Bytes want_a = first;
  std::copy_n(second.begin(), chunk, want_a.begin());
  expect_bytes(got_a, want_a, 0, kBytes, after, "a (as read back by the stream's last copies)");
  a.release();
  b.release();
  if (s != nullptr) stream.destroy();
}

// Data written on one stream and read on the other (each side synchronised first).
void check_stream_and_default_stream(const Dev& dev) {
  constexpr size_t kBytes = 4096 + 5;
  const Bytes first = pattern(kBytes, 41);
  const Bytes second = pattern(kBytes, 42);
  Bytes got(kBytes);
  Allocation a(dev, kBytes);
  Stream stream(dev);            // last: see check_stream_ordering
  void* created = stream.get();  // NULL when the device has no streams
  const std::pair<void*, void*> ways[] = {{created, nullptr}, {nullptr, created}};
  for (const auto& [writer, reader] : ways) {
    const Bytes& want = writer == created ? first : second;
    dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), want.data(), kBytes, writer, "dst device, src host");
    dev.synchronize(writer);
    dev.copy(BP_COPY_DEVICE_TO_HOST, got.data(), a.get(), kBytes, reader, "dst host, src device");
    dev.synchronize(reader);
    expect_bytes(got, want, 0, kBytes,
                 fmt::format("a host-to-device copy on {}, synchronize, a device-to-host copy on "
                             "{}, synchronize",
                             stream_str(writer), stream_str(reader)),
                 "host buffer");
  }
  a.release();
  if (created != nullptr) stream.destroy();
}

void check_synchronize_default(const Dev& dev) {
  if (dev.api().synchronize == nullptr) return;  // optional
  dev.synchronize(nullptr);                      // idle
  const Bytes want = pattern(1000, 51);
  Allocation a(dev, want.size());
  Bytes got(want.size());
  dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), want.data(), want.size(), nullptr,
           "dst device, src host");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got.data(), a.get(), want.size(), nullptr,
           "dst host, src device");
  dev.synchronize(nullptr);
  expect_bytes(got, want, 0, want.size(),
               "host-to-device and device-to-host copies on the default stream, then "
               "synchronize(NULL)",
               "host buffer");
  dev.synchronize(nullptr);  // again, now idle
  a.release();
}

}  // namespace bp::conformance::device_api
