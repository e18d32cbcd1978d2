// Fuzz target: a serving trace CSV (header, columns by name, times, token counts) through
// serve::read_trace, with lightsim's or the Azure trace's column names. Seeds: the shipped
// traces (configs/serve/traces/).
#include "fuzz_support.h"
#include "lightsim/serve/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = lightsim::fuzz::scratch_dir() / "trace.csv";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] {
    lightsim::serve::ArrivalSpec spec;
    if (size > 0 && (data[size - 1] & 1) != 0) {
      spec.time_column = "TIMESTAMP";
      spec.prompt_column = "ContextTokens";
      spec.output_column = "GeneratedTokens";
    }
    (void)lightsim::serve::read_trace(path, spec);
  });
  return 0;
}
