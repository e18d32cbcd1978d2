// WDM grid and the crosstalk of a bank of rings on one bus.
//
// Ring i rests on channel i. The fraction of channel j's input power that ring i drops is
//   X[i][j] = D_i(lambda_j) * prod_{k < i} T_k(lambda_j)
// (bus order: light reaching ring i has passed the through ports of rings 0..i-1), with the
// exact ring response over all FSR orders (ring.h). The through port keeps prod_k T_k.
// For spacing dl >> FWHM and one ring, X / D0 -> (FWHM / (2 dl))^2 (Lorentzian tail).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/ring.h"

namespace lightsim::photonics {

struct GridSpec {
  static constexpr std::string_view kind = "wdm_grid";

  int channels = 8;
  Length spacing = Length::si(1.0e-9);
  Length start = Length::si(1550e-9);

  static void describe(config::Schema<GridSpec>& s);
};

// Channel wavelengths start + j * spacing (metres), j = 0..channels-1.
std::vector<double> channel_wavelengths(const GridSpec& grid);

struct CrosstalkMatrix {
  int channels = 0;
  std::vector<double> leak;     // [i * channels + j]: fraction of channel j dropped by ring i
  std::vector<double> through;  // [j]: fraction of channel j left at the through port
  double drop_peak = 0.0;       // D0 of a lone ring, the reference of every ratio in dB

  double at(int i, int j) const { return leak[static_cast<std::size_t>(i * channels + j)]; }
};

// Rings resting on `channels` (metres) plus optional per-ring `detunings` (metres; empty =
// all on resonance, the worst case for leakage).
CrosstalkMatrix crosstalk_matrix(const Ring& ring, std::span<const double> channels,
                                 std::span<const double> detunings = {});

struct CrosstalkSummary {
  double worst_db = -1e300;  // max over i != j of 10 log10(X[i][j] / D0)
  int worst_ring = -1, worst_channel = -1;
  double worst_aggregate_db = -1e300;  // max over j of 10 log10(sum_{i != j} X[i][j] / D0)
  int worst_aggregate_channel = -1;
  double worst_bus_loss_db = 0.0;  // max over j of the loss on channel j before its own ring
  int worst_bus_loss_channel = -1;
};
CrosstalkSummary summarize(const CrosstalkMatrix& m);

// Lorentzian closed forms (reference, docs/photonics.md): isolation of one neighbour at
// spacing dl, and the spacing that reaches an isolation `isolation_db` (< 0).
double lorentzian_isolation(double fwhm, double spacing);
double spacing_for_isolation(double fwhm, double isolation_db);

}  // namespace lightsim::photonics
