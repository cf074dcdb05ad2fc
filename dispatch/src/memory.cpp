// The public side of the caching allocator (memory.hpp): the allocator mode, per-device
// statistics and empty_cache.
#include "backplane/dispatch/memory.hpp"

#include "caching_allocator.hpp"
#include "runtime_impl.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>

namespace bp {

namespace {

// The mode starts from BACKPLANE_ALLOCATOR, so it also applies to programs that never call
// bp::init() (a test binary run under valgrind). A bad value is reported here as a warning
// and by bp::init() as an error (config.cpp's apply_environment).
AllocatorMode initial_mode() {
  const char* text = std::getenv("BACKPLANE_ALLOCATOR");
  if (text == nullptr || *text == '\0') return AllocatorMode::Caching;
  if (std::optional<AllocatorMode> mode = parse_allocator_mode(text)) return *mode;
  fmt::print(stderr,
             "backplane: warning: BACKPLANE_ALLOCATOR: expected \"caching\" or \"direct\", got "
             "\"{}\"; using caching\n",
             text);
  return AllocatorMode::Caching;
}

detail::CachingAllocator& allocator_of(Device device) {
  detail::Backend& b = detail::Runtime::get().backend_for(device);
  return *b.allocators[static_cast<size_t>(device.index)];
}

}  // namespace

namespace detail {
constinit std::atomic<int> g_allocator_mode{kAllocatorModeUnread};

AllocatorMode read_initial_allocator_mode() {
  int expected = kAllocatorModeUnread;
  // A set_allocator_mode that came first wins; so does another thread's first read.
  g_allocator_mode.compare_exchange_strong(expected, static_cast<int>(initial_mode()));
  return static_cast<AllocatorMode>(g_allocator_mode.load());
}
}  // namespace detail

std::string_view to_string(AllocatorMode mode) {
  return mode == AllocatorMode::Direct ? "direct" : "caching";
}

std::optional<AllocatorMode> parse_allocator_mode(std::string_view text) {
  if (text == "caching") return AllocatorMode::Caching;
  if (text == "direct") return AllocatorMode::Direct;
  return std::nullopt;
}

void set_allocator_mode(AllocatorMode mode) {
  (void)detail::current_allocator_mode();  // BACKPLANE_ALLOCATOR's warning, if any, comes first
  const auto before =
      static_cast<AllocatorMode>(detail::g_allocator_mode.exchange(static_cast<int>(mode)));
  if (mode == AllocatorMode::Direct && before != AllocatorMode::Direct) empty_cache();
}

AllocatorMode allocator_mode() {
  return detail::current_allocator_mode();
}

MemoryStats memory_stats(Device device) {
  return allocator_of(device).stats();
}

void reset_peak_memory_stats(Device device) {
  allocator_of(device).reset_peak();
}

void empty_cache(Device device) {
  allocator_of(device).empty_cache();
}

void empty_cache() {
  detail::Runtime& rt = detail::Runtime::get();
  for (DeviceType t = 0; t < device_types::kMaxBackends; ++t)
    if (detail::Backend* b = rt.backend(t))
      for (const auto& a : b->allocators) a->empty_cache();
}

}  // namespace bp
