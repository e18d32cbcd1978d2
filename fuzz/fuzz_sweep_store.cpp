// Fuzz target: the records of a sweep result store read on --resume (sweep::ResultStore):
// a fixed valid header line, then the input as the record lines, checked against a sweep of
// four points (ids "p0".."p3", values {"x": i}). A store that opens is then sorted (the
// rewrite a finished sweep does). Seeds: fuzz/seeds/sweep_store.
#include "fuzz_support.h"
#include "lightsim/core/json.h"
#include "lightsim/sweep/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using lightsim::sweep::StoredPoint;
  static const lightsim::Json header = {
      {"lightsim_sweep", 1}, {"spec_hash", "abc"}, {"seed", 1}, {"points", 4}};
  static const std::vector<StoredPoint> points = {
      {"p0", R"({"x":0})"}, {"p1", R"({"x":1})"}, {"p2", R"({"x":2})"}, {"p3", R"({"x":3})"}};
  const auto path = lightsim::fuzz::scratch_dir() / "s.jsonl";
  lightsim::fuzz::write_file(
      path, header.dump() + "\n" + std::string(lightsim::fuzz::as_text(data, size)));
  lightsim::fuzz::expect_input_error_only([&] {
    lightsim::sweep::ResultStore store(path, header, true, points);
    store.sort();
  });
  return 0;
}
