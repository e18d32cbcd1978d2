// lightsim command-line entry point (skeleton; commands are added in apps/lightsim/).
#include <cstdio>

#include "lightsim/core/error.h"

int main() {
  std::puts("lightsim " LIGHTSIM_VERSION);
  return 0;
}
