// One query's optical readout on a programmed bank: the query encoding of
// electronics.query_encoding (programming.h), the kernel pass (intensity: one window, the
// digital offset sum_j w_j / 2 of the requested weights removed; balanced: the two
// complementary windows, their difference) — the scores the Prism scorer ranks, in weight units
// times max|P q| (intensity: half of that).
#pragma once

#include <span>
#include <vector>

#include "lightsim/core/rng.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/programming.h"

namespace lightsim::prism {

class QueryReadout {
 public:
  // `bank`: the weights the kernel was programmed with (its row sums give the offset).
  QueryReadout(const AcceleratorSpec& accelerator, const BankWeights& bank);
  // pq: d projected query values; out: one score per row of `kernel`. Noise is drawn from
  // `noise` in window order (rail + before rail -).
  void read(photonics::MvmKernel& kernel, std::span<const float> pq, RandomStream& noise,
            std::span<float> out);

 private:
  QueryEncoding encoding_;
  int query_bits_;
  std::vector<float> half_row_sum_;  // intensity: the offset removed from each row's score
  std::vector<float> x_, x_minus_, minus_;
};

}  // namespace lightsim::prism
