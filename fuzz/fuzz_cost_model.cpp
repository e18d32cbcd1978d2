// Fuzz target: a power and cost model (kind cost_model, configs/cost_models/) through its strict
// reader (with its fabric design), then priced over a fixed run of GB200 pools
// (serve::power_and_cost). Beyond the reader's contract, every figure of an accepted model
// must be finite: results are written as JSON, which has no NaN or Inf. Seeds:
// configs/cost_models/.
#include <cmath>

#include "fuzz_support.h"
#include "lightsim/core/config.h"
#include "lightsim/core/json.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/serve/cost.h"
#include "lightsim/serve/cost_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace serve = lightsim::serve;
  static const lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  static const lightsim::fabric::GpuSpec gpu =
      lightsim::config::load_spec<lightsim::fabric::GpuSpec>(
          LIGHTSIM_SOURCE_DIR "/configs/gpus/gb200.yaml", load);
  const auto path = lightsim::fuzz::scratch_dir() / "cost_model.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] {
    const auto model = lightsim::config::load_spec<serve::CostModelSpec>(path, load);
    serve::SimResult sim;
    sim.makespan = 600;
    sim.output_tokens_per_s = 5e4;
    sim.goodput = 40;
    // An idle pool, a busy one and a 72-GPU rack at 1.8 TB/s per GPU of scale-up.
    const std::vector<serve::PoolLoad> pools = {
        {&gpu, 8, 0.0, 0.0}, {&gpu, 64, 1.0, 900e9}, {&gpu, 72, 0.37, 1.8e12}};
    const lightsim::Json j = serve::to_json(serve::power_and_cost(model, pools, sim));
    for (const auto& [key, value] : j.items())
      if (value.is_number() && !std::isfinite(value.get<double>())) {
        std::fprintf(stderr, "fuzz: cost figure %s is %g\n", key.c_str(), value.get<double>());
        std::abort();
      }
  });
  return 0;
}
