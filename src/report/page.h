// Pieces shared by the parts of report.html: the page buffer and how numbers are printed.
#pragma once

#include <cmath>
#include <iterator>
#include <string>
#include <string_view>

#include "lightsim/core/error.h"
#include "lightsim/report/render.h"

namespace lightsim::report {

// Builds the page; every piece of text from a result passes through text() (escaped).
class Page {
 public:
  template <typename... Args>
  void raw(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(html_), format, std::forward<Args>(args)...);
  }
  void text(std::string_view plain) { html_ += html_escape(plain); }
  void markup(std::string_view fixed) { html_ += fixed; }
  std::string& html() { return html_; }

 private:
  std::string html_;
};

// A figure as a reader wants it: 4 significant digits ("0.4521", "3890", "1.57e-05");
// integer values below 10^7 in full ("32768", "1048576"), never in exponent form.
inline std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e7) return fmt::format("{:.0f}", v);
  if (std::isfinite(v) && std::fabs(v) >= 1e4 && std::fabs(v) < 1e7)
    return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

}  // namespace lightsim::report
