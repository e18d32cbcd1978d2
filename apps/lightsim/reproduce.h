// The main job: `lightsim reproduce [CONFIG]`, run by `make demo`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim::cli {

// configs/reproduce.yaml: which studies the main job runs, at what size.
struct ReproduceSpec {
  static constexpr std::string_view kind = "reproduce";

  std::string size = "default";
  std::vector<std::string> studies;  // empty = every registered study
  std::uint64_t seed = 1;
  Time progress_interval = Time::si(5.0);

  static void describe(config::Schema<ReproduceSpec>& s) {
    s.help("The main job (`lightsim reproduce`): every seed study, then the report.");
    s.field("size", &ReproduceSpec::size,
            "problem size of every study: quick (smoke test), default (the demo, minutes on 2 "
            "cores), full (publication runs)")
        .one_of({"quick", "default", "full"});
    s.field("studies", &ReproduceSpec::studies,
            "names of the studies to run (see `lightsim list`); empty runs every registered study");
    s.field("seed", &ReproduceSpec::seed, "seed of every random stream; --seed overrides it");
    s.field("progress_interval", &ReproduceSpec::progress_interval,
            "period of progress lines when stderr is not a terminal")
        .range("0.1 s", "3600 s");
  }
};

}  // namespace lightsim::cli
