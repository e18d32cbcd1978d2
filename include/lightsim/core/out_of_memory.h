// The one message of an allocation that failed (std::bad_alloc) despite the up-front memory
// estimates (memory_budget.h). Every place that turns a std::bad_alloc into an error (the
// CLI's main, the sweep runner's points, the Python module's exception translation) words it
// with out_of_memory_message, so the user reads one sentence saying what was being done and
// what bounds the allocation. It is reported as bad input (exit 2, lightsim::OutOfMemory in
// error.h), never exit 1 or an abort.
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/error.h"

namespace lightsim {

// "out of memory: <doing>; the --memory-budget flag and the sizes in the input bound what is
// allocated". `doing` says what ran ("running `lightsim kv generate`"); empty when unknown
// (then "out of memory; the ..."). Builds a short string only: callers run it after the
// failed allocation's stack has unwound, when the large arrays are already freed.
inline std::string out_of_memory_message(std::string_view doing) {
  std::string message = "out of memory";
  if (!doing.empty()) {
    message += ": ";
    message += doing;
  }
  message +=
      "; the --memory-budget flag and the sizes in the input bound what is allocated (lower "
      "them to what the machine and the process's limit, e.g. ulimit -v, can hold)";
  return message;
}

}  // namespace lightsim
