// Fuzz target: a Prism design-space spec (kind prism_design, configs/prism_designs/) through
// its strict reader (base accelerator, workload, space, target), then the enumeration of its
// candidates (prism::enumerate_designs, capped at kMaxDesignCandidates) and the accelerator of
// the first and the last candidate (prism::design_accelerator), the steps `prism design` takes
// before it scores anything. Seeds: configs/prism_designs/.
#include "fuzz_support.h"
#include "lightsim/core/config.h"
#include "lightsim/prism/design.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace prism = lightsim::prism;
  static const lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  const auto path = lightsim::fuzz::scratch_dir() / "design.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] {
    const auto spec = lightsim::config::load_spec<prism::PrismDesignSpec>(path, load);
    const std::vector<prism::DesignVariables> all = prism::enumerate_designs(spec);
    if (all.empty() || all.size() > prism::kMaxDesignCandidates) {
      std::fprintf(stderr, "fuzz: %zu design candidates (expected 1 to %llu)\n", all.size(),
                   static_cast<unsigned long long>(prism::kMaxDesignCandidates));
      std::abort();
    }
    (void)prism::design_accelerator(spec, all.front());
    (void)prism::design_accelerator(spec, all.back());
  });
  return 0;
}
