#include "lightsim/core/error.h"

#include <string_view>

namespace lightsim::detail {

void throw_internal(const char* file, int line, const char* condition, const std::string& message) {
  std::string_view path(file);
  if (auto pos = path.rfind("/src/"); pos != std::string_view::npos) path.remove_prefix(pos + 1);
  throw InternalError(fmt::format("internal error at {}:{}: {} (check `{}` failed)", path, line,
                                  message, condition));
}

}  // namespace lightsim::detail
