// The studies whose own loops run in parallel (over KV heads: balanced, enhancement; the
// retrieval engine and the QAT training have tests of their own) give the same result on one
// and two threads. Small sizes, so that the ThreadSanitizer run of this module (make test-tsan,
// docs/hardening.md) sees those loops on two threads in seconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lightsim/core/config_node.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json.h"
#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/register.h"
#include "lightsim/studies/study.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

// The shipped config at --quick, made smaller still by `assignments` (key=value).
std::string run_small(const std::string& name, const std::vector<std::string>& assignments,
                      std::size_t threads) {
  Registry registry;
  register_all(registry);
  const config::LoadOptions load = testing::shipped_configs();
  StudyInput in = make_input(name, default_config(name, load), load, Size::quick);
  for (const std::string& a : assignments) config::apply_assignment(in.document, a);
  Context ctx(ContextOptions{.seed = 11, .threads = threads});
  return to_json(study_family(registry).get(name)(in, ctx)).dump();
}

void expect_same_on_one_and_two_threads(const std::string& name,
                                        const std::vector<std::string>& assignments) {
  const std::string one = run_small(name, assignments, 1);
  EXPECT_NE(one.find("\"claims\""), std::string::npos);
  EXPECT_EQ(one, run_small(name, assignments, 2)) << name;
}

TEST(ParallelStudies, BalancedIsTheSameOnOneAndTwoThreads) {
  expect_same_on_one_and_two_threads(
      "balanced", {"workload.tokens=2048", "workload.steps=2", "power_scale=[1]"});
}

TEST(ParallelStudies, EnhancementIsTheSameOnOneAndTwoThreads) {
  expect_same_on_one_and_two_threads("enhancement", {"workload.tokens=2048", "workload.steps=4",
                                                     "top_k=4", "votes=[1, 2]", "qat.epochs=2"});
}

// The memory estimate before a study runs (check_study_memory) counts each worker thread's
// per-head buffers: at a budget between the one-thread and the many-thread estimates, the
// study passes with one thread and is refused with more, the message naming the threads.
TEST(StudyMemory, TheEstimateGrowsWithTheThreadCount) {
  Registry registry;
  register_all(registry);
  const config::LoadOptions load = testing::shipped_configs();
  for (const std::string name : {"impairments", "prism_design"}) {
    const auto estimate = [&](std::size_t threads) -> std::string {
      try {
        check_study_memory(registry, name, default_config(name, load), load, Size::quick, 1,
                           threads);
      } catch (const ConfigError& e) {
        return e.what();
      }
      return "";
    };
    const std::string one = estimate(1), four = estimate(4);
    EXPECT_NE(one.find("1 worker thread(s)"), std::string::npos) << one;
    EXPECT_NE(four.find("4 worker thread(s)"), std::string::npos) << four;
    // "needs ~X": the figure, in the same unit at both counts for these sizes.
    const auto needed = [](const std::string& what) {
      const std::size_t at = what.find("needs ~");
      return std::stod(what.substr(at + 7));
    };
    EXPECT_GT(needed(four), needed(one)) << one << "\n" << four;
  }
}

}  // namespace
}  // namespace lightsim::studies
