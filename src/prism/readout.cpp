// One query's optical readout (readout.h).
#include "lightsim/prism/readout.h"

#include "lightsim/core/error.h"

namespace lightsim::prism {

QueryReadout::QueryReadout(const AcceleratorSpec& a, const BankWeights& bank)
    : encoding_(a.electronics.query_encoding),
      query_bits_(a.electronics.query_bits),
      x_(static_cast<std::size_t>(bank.d)) {
  half_row_sum_.resize(bank.row_sum.size());
  for (std::size_t b = 0; b < half_row_sum_.size(); ++b)
    half_row_sum_[b] = static_cast<float>(0.5 * bank.row_sum[b]);
  if (encoding_ == QueryEncoding::balanced) {
    x_minus_.resize(x_.size());
    minus_.resize(bank.row_sum.size());
  }
}

void QueryReadout::read(photonics::MvmKernel& kernel, std::span<const float> pq,
                        RandomStream& noise, std::span<float> out) {
  LIGHTSIM_CHECK(pq.size() == x_.size() && out.size() == half_row_sum_.size(),
                 "QueryReadout: {} query values and {} scores for a {} x {} bank", pq.size(),
                 out.size(), half_row_sum_.size(), x_.size());
  float* __restrict o = out.data();
  if (encoding_ == QueryEncoding::balanced) {
    encode_query_balanced(pq, query_bits_, x_, x_minus_);
    kernel.score(x_, out, noise);
    kernel.score(x_minus_, minus_, noise);
    const float* __restrict m = minus_.data();
    for (std::size_t b = 0; b < out.size(); ++b) o[b] -= m[b];
    return;
  }
  encode_query(pq, query_bits_, x_);
  kernel.score(x_, out, noise);
  const float* __restrict offset = half_row_sum_.data();
  for (std::size_t b = 0; b < out.size(); ++b) o[b] -= offset[b];
}

}  // namespace lightsim::prism
