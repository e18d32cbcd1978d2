// The memory a run may allocate for its large arrays. Commands that allocate in proportion to
// their input estimate the peak first and refuse up front (InputError, exit 2) instead of
// running into the OOM killer or std::bad_alloc.
#pragma once

#include <cstdint>
#include <string_view>

namespace lightsim {

// Physical memory of the machine in bytes (sysconf); 0 when unknown.
std::uint64_t physical_memory_bytes();

// 80% of physical memory (the default of --memory-budget); 16 GiB when it is unknown.
std::uint64_t default_memory_budget();

// Bytes of `count` elements of `element_bytes` each, saturating at UINT64_MAX (so an
// estimate of absurd sizes is "too large", never a wrapped small number).
std::uint64_t bytes_of(std::uint64_t count, std::uint64_t element_bytes);
// a + b, saturating at UINT64_MAX.
std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b);

// InputError "<what> needs ~38.2 GiB, more than the memory budget of 20 GiB (--memory-budget,
// default 80% of RAM)" when needed_bytes > budget_bytes.
void require_memory(std::uint64_t needed_bytes, std::uint64_t budget_bytes, std::string_view what);

}  // namespace lightsim
