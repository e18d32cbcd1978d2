// Exact chunked prefill through a pipeline (pipeline.h, docs/prefill.md "Pipeline"): the
// causal cost of chunks and the flow-shop schedule, against closed forms.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "lightsim/prefill/pipeline.h"

namespace lightsim::prefill {
namespace {

TEST(ChunkedPrefill, ChunksOfOneSequenceCostTwoJPlusOneOverN) {
  // One sequence in n chunks: chunk j attends to j earlier chunks and itself causally,
  // cost (j + 1/2) c^2 against the mean n c^2 / 2: factor (2j + 1) / n.
  for (const std::int64_t n : {2, 4, 8, 16}) {
    const std::vector<double> f = chunk_attention_factors(1.0, n);
    ASSERT_EQ(f.size(), static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j)
      EXPECT_NEAR(f[static_cast<std::size_t>(j)], (2.0 * static_cast<double>(j) + 1) / n, 1e-12);
  }
}

TEST(ChunkedPrefill, WholeSequencesPerMicroBatchAreEqualAndFactorsSumToTheCount) {
  for (const double f : chunk_attention_factors(8.0, 4)) EXPECT_NEAR(f, 1.0, 1e-12);
  // 3 sequences in 2 micro-batches (1.5 each): unequal, still summing to 2.
  const std::vector<double> g = chunk_attention_factors(3.0, 2);
  EXPECT_NEAR(g[0] + g[1], 2.0, 1e-12);
  EXPECT_NEAR(g[0], (1.0 + 0.25) / 2 / 0.75, 1e-12);  // seq 0 whole + first half of seq 1
}

TEST(ChunkedPrefill, EqualMicroBatchesGiveTheGpipeClosedForm) {
  const std::vector<double> stage{1.0, 1.5, 0.7}, attention{0.4, 0.5, 0.2}, ones(4, 1.0);
  const PipelineTimes t = pipeline_makespan(stage, attention, ones, 12, 0.1);
  const double closed = 1.0 + 1.5 + 0.7 + 2 * 0.1 + 11 * 1.5;
  EXPECT_NEAR(t.latency, closed, 1e-12);
  EXPECT_NEAR(t.first_wave, 1.0 + 1.5 + 0.7 + 2 * 0.1 + 3 * 1.5, 1e-12);
}

TEST(ChunkedPrefill, GrowingChunksOnBalancedStagesExposeTheLastChunkInTheFill) {
  // Balanced stages (equal times per chunk on every stage), chunks growing in cost: the
  // makespan is sum_j t_j + (PP - 1) t_last (the longest, last chunk drains the pipeline),
  // longer than the average-chunk schedule (PP + n - 1) t_mean.
  const std::int64_t n = 4, pp = 4;
  const std::vector<double> f = chunk_attention_factors(1.0, n);
  const std::vector<double> stage(pp, 1.0), attention(pp, 0.8);
  const PipelineTimes t = pipeline_makespan(stage, attention, f, n, 0.0);
  double sum = 0;
  for (const double x : f) sum += 1.0 + (x - 1) * 0.8;
  const double last = 1.0 + (f.back() - 1) * 0.8;
  EXPECT_NEAR(t.latency, sum + (pp - 1) * last, 1e-12);
  EXPECT_GT(t.latency, static_cast<double>(pp + n - 1) * 1.0);
}

}  // namespace
}  // namespace lightsim::prefill
