// Everything this build of lightsim offers, registered explicitly in one place.
#include "lightsim/builtin/register.h"

#include "lightsim/decode/register.h"
#include "lightsim/fabric/register.h"
#include "lightsim/kv/register.h"
#include "lightsim/model/register.h"
#include "lightsim/ops/register.h"
#include "lightsim/photonics/register.h"
#include "lightsim/prefill/register.h"
#include "lightsim/prism/register.h"
#include "lightsim/serve/register.h"
#include "lightsim/studies/register.h"
#include "lightsim/sweep/register.h"

namespace lightsim {

void register_builtin(Registry& registry) {
  photonics::register_all(registry);
  kv::register_all(registry);
  model::register_all(registry);
  fabric::register_all(registry);
  prism::register_all(registry);
  prefill::register_all(registry);
  decode::register_all(registry);
  serve::register_all(registry);
  studies::register_all(registry);
  ops::register_all(registry);
  sweep::register_all(registry);
}

}  // namespace lightsim
