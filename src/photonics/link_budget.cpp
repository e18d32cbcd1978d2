// Link budget (see link_budget.h). Sources: reference "Link budget" (SimPhony /
// Lightening-Transformer style) and "Detection and noise".
#include "lightsim/photonics/link_budget.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lightsim/core/json.h"
#include "lightsim/photonics/device.h"

namespace lightsim::photonics {
namespace {

double enob_of(double snr_db) {
  return (snr_db - 1.76) / 6.02;
}

DetectionModel detection_of(const DeviceSpec& d) {
  return DetectionModel(d.detector, d.tia, d.adc, d.laser, d.noise);
}

}  // namespace

double splitter_loss_db(int rows, double excess_per_stage_db) {
  const double stages = rows > 1 ? std::ceil(std::log2(static_cast<double>(rows))) : 0.0;
  return 10.0 * std::log10(static_cast<double>(rows)) + excess_per_stage_db * stages;
}

LinkBudget link_budget(const DeviceSpec& d, double line_power) {
  LinkBudget b;
  b.coupling_db = d.path.coupling_loss.si();
  b.modulator_db = d.modulator.insertion_loss.si();
  b.splitter_db = splitter_loss_db(d.bank.rows, d.path.splitter_excess.si());
  b.waveguide_db = d.path.waveguide_loss.si() * d.path.waveguide_length.si();
  const double through = d.path.ring_through_loss.si(), drop = d.path.ring_drop_loss.si();
  b.rings_db = (d.grid.channels - 1) * through + std::max(through, drop);
  b.detector_coupling_db = d.path.detector_coupling_loss.si();
  b.total_loss_db = b.coupling_db + b.modulator_db + b.splitter_db + b.waveguide_db + b.rings_db +
                    b.detector_coupling_db;
  b.line_power = line_power;
  b.channel_power = line_power * std::pow(10.0, -b.total_loss_db / 10.0);
  const int ch = d.grid.channels;
  b.row_power = b.channel_power * ch;
  const double w = d.requirements.weight_range;
  b.pd_power_thru = b.row_power * 0.5 * (1.0 + w);
  b.pd_power_drop = b.row_power * 0.5 * (1.0 - w);
  const DetectionModel det = detection_of(d);
  const double r = det.responsivity();
  b.signal_current = r * b.row_power * w;
  b.adc_utilization = b.signal_current / (0.5 * det.adc_full_scale_current());
  const double per_line = r * b.channel_power * w;
  b.noise = det.variances(r * b.pd_power_thru, r * b.pd_power_drop, ch * per_line * per_line);
  b.snr_db = 10.0 * std::log10(b.signal_current * b.signal_current / b.noise.total());
  b.enob = enob_of(b.snr_db);
  b.target_enob = d.requirements.score_enob;
  b.wall_power = line_power * ch / d.laser.wall_plug_efficiency;
  b.required_line_power = std::numeric_limits<double>::quiet_NaN();
  b.required_wall_power = std::numeric_limits<double>::quiet_NaN();
  return b;
}

LinkBudget link_budget(const DeviceSpec& d) {
  LinkBudget b = link_budget(d, d.laser.power_per_line.si());
  // ENOB rises monotonically with laser power until RIN (which scales like the signal) or
  // ADC quantization caps it; bisect in log power over 1 nW .. 10 W per line.
  auto enob_at = [&](double p) { return link_budget(d, p).enob; };
  double lo = 1e-9, hi = 10.0;
  if (enob_at(hi) >= b.target_enob) {
    if (enob_at(lo) >= b.target_enob) {
      b.required_line_power = lo;
    } else {
      for (int i = 0; i < 200 && hi / lo > 1.0 + 1e-12; ++i) {
        const double mid = std::sqrt(lo * hi);
        (enob_at(mid) >= b.target_enob ? hi : lo) = mid;
      }
      b.required_line_power = hi;
    }
    b.required_wall_power = b.required_line_power * d.grid.channels / d.laser.wall_plug_efficiency;
  }
  return b;
}

Json to_json(const LinkBudget& b) {
  auto dbm = [](double w) { return 10.0 * std::log10(w / 1e-3); };
  auto maybe = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  auto rms_na = [](double var) { return std::sqrt(var) * 1e9; };
  Json j = {{"coupling_loss_db", b.coupling_db},
            {"modulator_loss_db", b.modulator_db},
            {"splitter_loss_db", b.splitter_db},
            {"waveguide_loss_db", b.waveguide_db},
            {"total_loss_db", b.total_loss_db},
            {"line_power_dbm", dbm(b.line_power)},
            {"channel_power_at_row_uw", b.channel_power * 1e6},
            {"row_power_uw", b.row_power * 1e6},
            {"pd_power_thru_uw", b.pd_power_thru * 1e6},
            {"pd_power_drop_uw", b.pd_power_drop * 1e6},
            {"signal_current_ua", b.signal_current * 1e6},
            {"adc_utilization", b.adc_utilization},
            {"noise_rms_na",
             {{"shot", rms_na(b.noise.shot)},
              {"thermal", rms_na(b.noise.thermal)},
              {"tia", rms_na(b.noise.tia)},
              {"nep", rms_na(b.noise.nep)},
              {"rin", rms_na(b.noise.rin)},
              {"adc", rms_na(b.noise.adc)},
              {"total", rms_na(b.noise.total())}}},
            {"snr_db", b.snr_db},
            {"enob", b.enob},
            {"target_enob", b.target_enob},
            {"required_line_power_dbm",
             std::isfinite(b.required_line_power) ? Json(dbm(b.required_line_power)) : Json()},
            {"required_wall_power_w", maybe(b.required_wall_power)},
            {"wall_power_w", b.wall_power}};
  // The on-row lines only when a device has them (a zero line would change every report).
  if (b.rings_db != 0) j["rings_loss_db"] = b.rings_db;
  if (b.detector_coupling_db != 0) j["detector_coupling_loss_db"] = b.detector_coupling_db;
  return j;
}

}  // namespace lightsim::photonics
