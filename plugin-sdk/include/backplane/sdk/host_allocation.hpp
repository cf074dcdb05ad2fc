// Checks a plugin makes before it allocates host memory for a device (the CPU plugin, the
// reference backend, HostMemoryDevice): the requests the C library must not be handed.
// Each returns BP_OK, or the status and message the plugin should report (prefixed with
// `who`, the plugin's name). Header-only, no dependency beyond plugin.h.
#pragma once

#include <backplane/plugin.h>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bp::sdk {

struct HostAllocationRefusal {
  bp_status status = BP_OK;  // BP_OK: go ahead
  std::string message;
};

// The ABI promises a power-of-two alignment; anything else is refused here rather than
// passed to posix_memalign/aligned_alloc, whose answer is the C library's (a sanitizer's
// allocator aborts the process).
inline HostAllocationRefusal check_host_alignment(std::string_view who, size_t alignment) {
  if (alignment != 0 && (alignment & (alignment - 1)) == 0) return {};
  return {BP_ERR_INVALID_ARGUMENT,
          std::string(who) + ": alignment " + std::to_string(alignment) + " is not a power of two"};
}

// More than the machine's physical memory is refused rather than asked of malloc: with
// memory overcommit it may succeed and the process dies at first touch, and under
// AddressSanitizer a huge request aborts the process instead of returning NULL.
inline HostAllocationRefusal check_host_memory(std::string_view who, size_t bytes) {
  static const uint64_t physical =
      sysconf(_SC_PHYS_PAGES) > 0 && sysconf(_SC_PAGE_SIZE) > 0
          ? uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE))
          : 0;
  if (physical == 0 || bytes <= physical) return {};
  const long free_pages = sysconf(_SC_AVPHYS_PAGES);
  const uint64_t free_bytes =
      free_pages > 0 ? uint64_t(free_pages) * uint64_t(sysconf(_SC_PAGE_SIZE)) : 0;
  return {BP_ERR_OUT_OF_MEMORY, std::string(who) + ": cannot allocate " + std::to_string(bytes) +
                                    " bytes: more than the host's " + std::to_string(physical) +
                                    " bytes of physical memory (" + std::to_string(free_bytes) +
                                    " bytes free)"};
}

}  // namespace bp::sdk
