// Link budget of one ring row: losses from the laser to the photodiodes, received power,
// each noise term, SNR and ENOB, and the laser power a target ENOB needs.
//
// Reference operating point: every line on (x = 1) and every weight at +w (w =
// requirements.weight_range), split ideally between the photodiodes (T = (1 + w)/2,
// D = (1 - w)/2). Signal = the full balanced swing R P_row w; noise at that point.
#pragma once

#include "lightsim/core/json_fwd.h"
#include "lightsim/photonics/detection.h"

namespace lightsim::photonics {

struct DeviceSpec;

struct LinkBudget {
  // Losses (dB) from one laser line to the photodiodes along the critical path: to the row
  // (coupling, modulator, splitter, waveguide), then on the row (rings_db = (channels - 1) x
  // path.ring_through_loss + max(ring_through_loss, ring_drop_loss): the last channel passes
  // every other ring, then its own ring's worse port) and into the photodiode
  // (detector_coupling_db). channel_power and the photodiode powers are after total_loss_db.
  double coupling_db = 0, modulator_db = 0, splitter_db = 0, waveguide_db = 0, rings_db = 0,
         detector_coupling_db = 0, total_loss_db = 0;
  double line_power = 0;                        // W per comb line at the laser
  double channel_power = 0;                     // W per channel at a ring row
  double row_power = 0;                         // W, all channels at a row
  double pd_power_thru = 0, pd_power_drop = 0;  // W at the photodiodes (reference point)
  double signal_current = 0;                    // A, full balanced swing
  double adc_utilization = 0;  // signal / (ADC full scale / 2) at the TIA output; > 1 clips
  NoiseTerms noise;            // A^2
  double snr_db = 0, enob = 0;
  double target_enob = 0;
  double required_line_power = 0;  // W per line for target_enob; NaN when unreachable
  double required_wall_power = 0;  // W of electrical laser power for that (all lines)
  double wall_power = 0;           // W of electrical laser power as configured
};

// Loss (dB) of the splitter tree to n rows: 10 log10 n + excess * ceil(log2 n).
double splitter_loss_db(int rows, double excess_per_stage_db);

LinkBudget link_budget(const DeviceSpec& device);
// Same, with the laser power per line replaced by `line_power` (W).
LinkBudget link_budget(const DeviceSpec& device, double line_power);

Json to_json(const LinkBudget& b);

}  // namespace lightsim::photonics
