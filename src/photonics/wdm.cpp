// WDM grid and bus-order crosstalk (see wdm.h).
#include "lightsim/photonics/wdm.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::photonics {

void GridSpec::describe(config::Schema<GridSpec>& s) {
  s.help("WDM grid: one channel per input dimension, equally spaced.");
  s.field("channels", &GridSpec::channels, "number of wavelength channels d").range(1, 4096);
  s.field("spacing", &GridSpec::spacing, "channel spacing").range("1 pm", "1 um");
  s.field("start", &GridSpec::start, "wavelength of channel 0").range("200 nm", "10 um");
}

std::vector<double> channel_wavelengths(const GridSpec& grid) {
  std::vector<double> out(static_cast<std::size_t>(grid.channels));
  for (int j = 0; j < grid.channels; ++j)
    out[static_cast<std::size_t>(j)] = grid.start.si() + j * grid.spacing.si();
  return out;
}

CrosstalkMatrix crosstalk_matrix(const Ring& ring, std::span<const double> channels,
                                 std::span<const double> detunings) {
  LIGHTSIM_CHECK(detunings.empty() || detunings.size() == channels.size(),
                 "crosstalk_matrix: {} detunings for {} channels", detunings.size(),
                 channels.size());
  const int d = static_cast<int>(channels.size());
  CrosstalkMatrix m;
  m.channels = d;
  m.leak.assign(static_cast<std::size_t>(d) * static_cast<std::size_t>(d), 0.0);
  m.through.assign(static_cast<std::size_t>(d), 1.0);
  m.drop_peak = ring.drop_peak();
  for (int j = 0; j < d; ++j) {
    const double lambda = channels[static_cast<std::size_t>(j)];
    double remaining = 1.0;  // of channel j, after the rings before ring i
    for (int i = 0; i < d; ++i) {
      const double resonance = channels[static_cast<std::size_t>(i)] +
                               (detunings.empty() ? 0.0 : detunings[static_cast<std::size_t>(i)]);
      const PortPowers p = ring.at(lambda, resonance);
      m.leak[static_cast<std::size_t>(i * d + j)] = remaining * p.drop;
      remaining *= p.through;
    }
    m.through[static_cast<std::size_t>(j)] = remaining;
  }
  return m;
}

CrosstalkSummary summarize(const CrosstalkMatrix& m) {
  CrosstalkSummary s;
  const int d = m.channels;
  for (int j = 0; j < d; ++j) {
    double aggregate = 0.0;
    for (int i = 0; i < d; ++i) {
      if (i == j) continue;
      const double x = m.at(i, j);
      aggregate += x;
      const double db = 10.0 * std::log10(std::max(x, 1e-300) / m.drop_peak);
      if (db > s.worst_db) s.worst_db = db, s.worst_ring = i, s.worst_channel = j;
    }
    if (d > 1) {
      const double db = 10.0 * std::log10(std::max(aggregate, 1e-300) / m.drop_peak);
      if (db > s.worst_aggregate_db) s.worst_aggregate_db = db, s.worst_aggregate_channel = j;
    }
  }
  // Channel j reaches its own ring after the through ports of rings 0..j-1:
  // X[j][j] = D0 * prod_{k<j} T_k(lambda_j).
  for (int j = 0; j < d; ++j) {
    const double db = -10.0 * std::log10(m.at(j, j) / m.drop_peak);
    if (db > s.worst_bus_loss_db) s.worst_bus_loss_db = db, s.worst_bus_loss_channel = j;
  }
  return s;
}

double lorentzian_isolation(double fwhm, double spacing) {
  const double t = 2.0 * spacing / fwhm;
  return 1.0 / (1.0 + t * t);
}

double spacing_for_isolation(double fwhm, double isolation_db) {
  return 0.5 * fwhm * std::sqrt(std::pow(10.0, -isolation_db / 10.0) - 1.0);
}

}  // namespace lightsim::photonics
