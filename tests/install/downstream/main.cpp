// Reads the TFLN device preset from lightsim's data folder and prints its ring's free spectral
// range: one call into lightsim::core (data_dir) and one into lightsim::photonics (Ring).
// Exit 2 with lightsim's message on bad input (e.g. no data folder: set LIGHTSIM_DATA).
#include <iostream>

#include "lightsim/core/config.h"
#include "lightsim/core/data_dir.h"
#include "lightsim/core/error.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/ring.h"

int main() {
  try {
    lightsim::config::LoadOptions options;
    options.config_roots = {lightsim::data_configs_dir()};
    const auto device = lightsim::config::load_spec<lightsim::photonics::DeviceSpec>(
        lightsim::data_configs_dir() / "devices" / "tfln.yaml", options);
    const lightsim::photonics::Ring ring = lightsim::photonics::Ring::from_spec(device.ring);
    std::cout << "data folder: " << lightsim::data_dir().string() << "\n";
    std::cout << "tfln ring FSR: " << lightsim::to_string(lightsim::Length::si(ring.fsr())) << "\n";
    return 0;
  } catch (const lightsim::InputError& e) {
    std::cerr << "downstream: error: " << e.what() << "\n";
    return 2;
  }
}
