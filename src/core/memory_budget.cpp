#include "lightsim/core/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"

namespace lightsim {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return bytes_of(static_cast<std::uint64_t>(pages), static_cast<std::uint64_t>(page_size));
}

namespace {

// The process's own ceiling: the smaller of its address-space and data-segment limits
// (setrlimit, `ulimit -v`); 0 when neither is set. Beyond it an allocation fails with
// std::bad_alloc whatever the machine's RAM, so the default budget respects it too.
std::uint64_t process_memory_limit() {
  std::uint64_t limit = 0;
  const auto lower_to = [&limit](auto which) {
    rlimit r{};
    if (::getrlimit(which, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return;
    const auto cur = static_cast<std::uint64_t>(r.rlim_cur);
    limit = limit == 0 ? cur : std::min(limit, cur);
  };
  lower_to(RLIMIT_AS);
  lower_to(RLIMIT_DATA);
  return limit;
}

}  // namespace

std::uint64_t default_memory_budget() {
  std::uint64_t ram = physical_memory_bytes();
  if (ram == 0) ram = std::uint64_t{20} << 30;  // unknown: a budget of 16 GiB
  const std::uint64_t limit = process_memory_limit();
  if (limit != 0) ram = std::min(ram, limit);
  return ram / 5 * 4;
}

std::uint64_t bytes_of(std::uint64_t count, std::uint64_t element_bytes) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(count, element_bytes, &out))
    return std::numeric_limits<std::uint64_t>::max();
  return out;
}

std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::uint64_t>::max();
  return out;
}

void require_memory(std::uint64_t needed_bytes, std::uint64_t budget_bytes, std::string_view what) {
  if (needed_bytes <= budget_bytes) return;
  const std::string needed = needed_bytes == std::numeric_limits<std::uint64_t>::max()
                                 ? std::string("more than 16 EiB")
                                 : fmt::format("~{}", format_bytes(needed_bytes));
  LIGHTSIM_THROW(InputError,
                 "{} needs {}, more than the memory budget of {} (--memory-budget, default 80% "
                 "of RAM)",
                 what, needed, format_bytes(budget_bytes));
}

}  // namespace lightsim
