// The photonic MVM kernel (see mvm.h).
#include "lightsim/photonics/mvm.h"

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "photonics/mvm_kernels.h"

namespace lightsim::photonics {

static_assert(BlockLayout::kRows == kernels::kBlock);

MvmKernel::MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
                     std::span<const float> weights, bool ideal_state)
    : bank_(device, impairments, weights, ideal_state),
      detection_(device, impairments.noise, bank_.layout()),
      drift_(device, impairments, bank_.programmer().ring(), bank_.layout()),
      kernels_(&kernels::kernels_for_cpu()) {
  if (ideal_state) detection_.set_offsets(bank_.row_weight_sums());
}

void MvmKernel::set_state(std::uint64_t seed, std::uint64_t trial) {
  bank_.set_state(seed, trial);
  detection_.set_offsets(bank_.row_weight_sums());
  drift_.restart();
}

void MvmKernel::score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                      std::span<float> currents) {
  detection_.modulate(x);
  const kernels::KernelSet& k = *kernels_;
  const int d = bank_.channels();
  k.block_pass(bank_.weights(0), bank_.fractions(0), nullptr, x.data(), detection_.line_factors(),
               detection_.line_factors_sq(), d, detection_.shot_noise(), detection_.rin_noise(),
               detection_.acc(0), detection_.sum(0), detection_.rin2(0), bank_.layout().blocks());
  detection_.finish(scores, currents, noise, k);
}

void MvmKernel::score_with_drift(std::span<const float> x, std::span<float> scores,
                                 RandomStream& noise, std::span<float> currents) {
  // The per-query own-weight corrections are of the balanced weight T - D.
  LIGHTSIM_CHECK_AS(InputError, !detection_.single_ended(),
                    "per-query drift (score_with_drift) is modelled for balanced detection only "
                    "(detector.mode: balanced)");
  detection_.modulate(x);
  const kernels::KernelSet& k = *kernels_;
  const int d = bank_.channels();
  drift_.begin_query();
  if (const float* held = drift_.held_corrections()) {  // all blocks in one pass
    k.block_pass(bank_.weights(0), bank_.fractions(0), held, x.data(), detection_.line_factors(),
                 detection_.line_factors_sq(), d, detection_.shot_noise(), detection_.rin_noise(),
                 detection_.acc(0), detection_.sum(0), detection_.rin2(0), bank_.layout().blocks());
    drift_.end_query();
    return detection_.finish(scores, currents, noise, k);
  }
  for (int b = 0; b < bank_.layout().blocks(); ++b) {
    const float* corr = drift_.block_corrections(b, bank_, noise, k);
    k.block_pass(bank_.weights(b), bank_.fractions(b), corr, x.data(), detection_.line_factors(),
                 detection_.line_factors_sq(), d, detection_.shot_noise(), detection_.rin_noise(),
                 detection_.acc(b), detection_.sum(b), detection_.rin2(b), 1);
  }
  drift_.end_query();
  detection_.finish(scores, currents, noise, k);
}

void MvmKernel::use_simd_level(detail::SimdLevel level) {
  kernels_ = &kernels::kernels_for(level);
  bank_.use_kernels(*kernels_);
}

}  // namespace lightsim::photonics
