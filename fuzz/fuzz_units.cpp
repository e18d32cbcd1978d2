// Fuzz target: quantity strings ("1550 nm", "5 pA/sqrt(Hz)", ...). Besides rejecting bad text
// with a UnitError, a parsed finite value must print and parse back to the same double
// (units.h: parse(to_string(q)) == q exactly).
#include <cmath>

#include "fuzz_support.h"
#include "lightsim/core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = lightsim::fuzz::as_text(data, size);
  lightsim::fuzz::expect_input_error_only([&] {
    const lightsim::ParsedQuantity q = lightsim::parse_quantity(text);
    if (!std::isfinite(q.si)) return;
    const std::string printed = lightsim::format_quantity(q.si, q.dim);
    const lightsim::ParsedQuantity back = lightsim::parse_quantity(printed);
    if (!(back.dim == q.dim) || back.si != q.si) {
      std::fprintf(stderr, "fuzz: '%s' printed as '%s' does not parse back (%.17g vs %.17g)\n",
                   std::string(text).c_str(), printed.c_str(), q.si, back.si);
      std::abort();
    }
  });
  return 0;
}
