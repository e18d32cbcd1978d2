// The memory a sweep holds in proportion to its point count, estimated from the spec alone
// (before expand()), so that a sweep too large for --memory-budget is refused up front with
// exit 2 instead of ending in std::bad_alloc or the OOM killer (docs/hardening.md, "Limits").
#pragma once

#include <cstdint>

#include "lightsim/sweep/spec.h"

namespace lightsim::sweep {

// Bytes of the per-point lists alive together when the run starts (run.cpp, run_sweep): the
// points of expand() (keys and values as strings), the store's expected ids and value texts
// (StoredPoint) and the pending index list (as JSON, its text, the broadcast copy and the
// parsed vector). Each string is costed as libstdc++ does (inline up to 15 characters) plus
// glibc malloc's chunk (16-byte granules, 32 bytes at least); value lengths are the longest
// each key can take, so it is an upper estimate (a 10^6-point sample of one integer key:
// 458 MiB in all; its points alone 221 MiB, while the whole process peaked at 217 MB of RSS
// checking them). The point results themselves are bounded by the batch, not counted.
std::uint64_t estimate_sweep_bytes(const SweepSpec& spec);

}  // namespace lightsim::sweep
