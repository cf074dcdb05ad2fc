// The device-API checks, one function each, by the part of bp_device_api they drive. Each
// throws CheckFailure (harness.hpp) when the device misbehaves; device_checks.cpp names them
// and says which belong to the quick suite.
#pragma once

#include "harness.hpp"

#include <initializer_list>

namespace bp::conformance::device_api {

// enumeration (properties.cpp)
void check_properties(const Dev& dev);
void check_properties_bad_index(const Dev& dev);

// alloc and free (allocation.cpp)
void check_alloc_zero(const Dev& dev);
void check_alloc_sizes(const Dev& dev, std::initializer_list<size_t> sizes);
void check_alloc_large(const Dev& dev, size_t bytes);
void check_alloc_256mib(const Dev& dev);
void check_alignment(const Dev& dev);
void check_alignment_not_power_of_two(const Dev& dev);
void check_free_null(const Dev& dev);
void check_allocations_disjoint(const Dev& dev);

// copies (copies.cpp)
void check_copy_host_to_device(const Dev& dev);
void check_copy_device_to_host(const Dev& dev);
void check_copy_device_to_device(const Dev& dev);
void check_copy_zero_bytes(const Dev& dev);

// streams (streams.cpp)
void check_streams_create_destroy(const Dev& dev);
void check_stream_ordering(const Dev& dev);
void check_stream_and_default_stream(const Dev& dev);
void check_synchronize_default(const Dev& dev);

}  // namespace bp::conformance::device_api
