// The report's first screen (summary.h).
#include "report/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace lightsim::report {
namespace {

constexpr std::array<Verdict, 5> kVerdicts = {Verdict::holds, Verdict::holds_under_conditions,
                                              Verdict::does_not_hold, Verdict::not_comparable,
                                              Verdict::depends_on_workload};

// Claims per verdict, in kVerdicts' order.
struct Tally {
  std::array<std::size_t, kVerdicts.size()> count{};
  std::size_t total() const { return count[0] + count[1] + count[2] + count[3] + count[4]; }
  std::size_t of(Verdict v) const {
    return count[static_cast<std::size_t>(std::find(kVerdicts.begin(), kVerdicts.end(), v) -
                                          kVerdicts.begin())];
  }
  void add(Verdict v) {
    ++count[static_cast<std::size_t>(std::find(kVerdicts.begin(), kVerdicts.end(), v) -
                                     kVerdicts.begin())];
  }
};

Tally tally(const StudyResult& r) {
  Tally t;
  for (const Claim& c : r.claims) t.add(c.verdict);
  return t;
}

std::string with_unit(const std::string& value, const std::string& unit) {
  return unit.empty() ? value : value + " " + unit;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The claims that do not hold, largest |deviation| first, at most one per study.
std::vector<std::pair<const StudyResult*, const Claim*>> largest_deviations(
    const ResultSet& results, std::size_t limit) {
  std::vector<std::pair<const StudyResult*, const Claim*>> best;
  for (const StudyResult& r : results.studies) {
    const Claim* top = nullptr;
    double top_d = -1.0;
    for (const Claim& c : r.claims) {
      const std::optional<double> d = deviation(c.seed_value, c.ours);
      if (c.verdict != Verdict::does_not_hold || !d || std::fabs(*d) <= top_d) continue;
      top = &c;
      top_d = std::fabs(*d);
    }
    if (top != nullptr) best.emplace_back(&r, top);
  }
  std::stable_sort(best.begin(), best.end(), [](const auto& a, const auto& b) {
    return std::fabs(*deviation(a.second->seed_value, a.second->ours)) >
           std::fabs(*deviation(b.second->seed_value, b.second->ours));
  });
  if (best.size() > limit) best.resize(limit);
  return best;
}

}  // namespace

std::string seed_text(const Claim& c) {
  switch (c.seed_value.kind) {
    case SeedValue::Kind::none:
      return "—";
    case SeedValue::Kind::point:
      return with_unit(format_number(c.seed_value.lo), c.unit);
    case SeedValue::Kind::range:
      return with_unit(format_number(c.seed_value.lo) + " – " + format_number(c.seed_value.hi),
                       c.unit);
  }
  return "";
}

std::string ours_text(const Claim& c) {
  if (!c.ours) return "—";
  if (!c.ours_ci95) return with_unit(format_number(*c.ours), c.unit);
  return with_unit(format_number(*c.ours) + " ± " + format_number(*c.ours_ci95), c.unit);
}

std::string deviation_text(const Claim& c) {
  const std::optional<double> d = deviation(c.seed_value, c.ours);
  if (!d) return "—";
  return std::fabs(*d) >= 10.0 ? fmt::format("{:+.0f} %", *d * 100.0)
                               : fmt::format("{:+.1f} %", *d * 100.0);
}

std::string verdict_class(Verdict v) {
  std::string slug(to_string(v));
  for (char& ch : slug)
    if (ch == ' ') ch = '-';
  return "verdict verdict-" + slug;
}

std::vector<std::string> headline_findings(const ResultSet& results) {
  Tally all;
  std::vector<std::string> holding_studies;
  std::vector<std::string> failing_studies;
  for (const StudyResult& r : results.studies) {
    const Tally t = tally(r);
    for (std::size_t i = 0; i < kVerdicts.size(); ++i) all.count[i] += t.count[i];
    if (t.of(Verdict::holds) > 0) holding_studies.push_back(r.study);
    if (t.total() > 0 && t.of(Verdict::holds) + t.of(Verdict::holds_under_conditions) == 0)
      failing_studies.push_back(r.study);
  }
  std::vector<std::string> out;
  if (all.total() == 0) return out;
  out.push_back(fmt::format(
      "Of {} from the seed documents, {} as stated, {} only under stated conditions, {} and "
      "{} cannot be judged (no comparable figure of ours).",
      plural(all.total(), "claim", "claims"), plural(all.of(Verdict::holds), "holds", "hold"),
      plural(all.of(Verdict::holds_under_conditions), "holds", "hold"),
      plural(all.of(Verdict::does_not_hold), "does not hold", "do not hold"),
      all.of(Verdict::not_comparable)));
  if (all.of(Verdict::depends_on_workload) > 0)
    out.push_back(fmt::format(
        "{} on several KV workloads (study rejudge): the verdict differs between workloads.",
        plural(all.of(Verdict::depends_on_workload), "claim re-judged", "claims re-judged")));
  for (const auto& [r, c] : largest_deviations(results, 2))
    out.push_back(
        fmt::format("Largest deviation in {}: \"{}\": the seed documents give {}, we get {} ({}).",
                    r->study, c->claim, seed_text(*c), ours_text(*c), deviation_text(*c)));
  if (!holding_studies.empty())
    out.push_back(fmt::format("Claims hold as stated in {} of {} studies: {}.",
                              holding_studies.size(), results.studies.size(),
                              fmt::join(holding_studies, ", ")));
  if (!failing_studies.empty())
    out.push_back(fmt::format("No claim holds, even under conditions, in {}: {}.",
                              plural(failing_studies.size(), "study", "studies"),
                              fmt::join(failing_studies, ", ")));
  if (out.size() > 5) out.resize(5);
  return out;
}

void summary_block(Page& p, const ResultSet& results) {
  p.raw("<section id=\"summary\" class=\"summary-block\">\n<h2>Summary</h2>\n");
  p.raw(
      "<p class=\"definition\"><b>Seed</b> means the seed documents: the design documents "
      "whose claims this report checks (the <code>SPEC</code> sections named per study). "
      "<b>Seed figure</b> is their number, <b>ours</b> is lightsim's, the deviation is ours "
      "relative to theirs; on a chart, a seed figure is a dark-grey diamond or dashed line "
      "labelled <i>seed figure</i>. Seed is unrelated to the <b>random seed</b>, the integer that "
      "fixes "
      "every random stream of a run.</p>\n");
  Tally all;
  bool any = false;
  for (const StudyResult& r : results.studies) any = any || !r.claims.empty();
  if (!any) {
    p.raw("<p class=\"muted\">No claims in these results.</p>\n</section>\n");
    return;
  }
  p.raw("<table class=\"tally\"><thead><tr><th>Study</th>");
  for (Verdict v : kVerdicts) p.raw("<th>{}</th>", to_string(v));
  p.raw("<th>claims</th></tr></thead><tbody>\n");
  for (const StudyResult& r : results.studies) {
    const Tally t = tally(r);
    for (std::size_t i = 0; i < kVerdicts.size(); ++i) all.count[i] += t.count[i];
    p.raw("<tr><td><a href=\"#study-{}\">", r.study);
    p.text(r.title);
    p.raw("</a></td>");
    for (std::size_t n : t.count) p.raw("<td class=\"num\">{}</td>", n);
    p.raw("<td class=\"num\">{}</td></tr>\n", t.total());
  }
  p.raw("</tbody><tfoot><tr><th>all studies</th>");
  for (std::size_t n : all.count) p.raw("<th class=\"num\">{}</th>", n);
  p.raw("<th class=\"num\">{}</th></tr></tfoot></table>\n", all.total());
  p.raw("<h3>Headline findings</h3>\n<ol class=\"findings\">\n");
  for (const std::string& finding : headline_findings(results)) {
    p.raw("<li>");
    p.text(finding);
    p.raw("</li>\n");
  }
  p.raw("</ol>\n</section>\n");
}

void table_of_contents(Page& p, const ResultSet& results) {
  p.raw(
      "<nav id=\"contents\"><h2>Contents</h2>\n<ol>\n<li><a href=\"#summary\">Summary</a></li>\n"
      "<li><a href=\"#claims\">Claims by study</a></li>\n");
  for (const StudyResult& r : results.studies) {
    p.raw("<li><a href=\"#study-{}\">", r.study);
    p.text(r.title);
    p.raw("</a></li>\n");
  }
  p.raw("</ol>\n</nav>\n");
}

void claims_by_study(Page& p, const ResultSet& results) {
  p.raw("<section id=\"claims\">\n<h2>Claims by study</h2>\n");
  std::size_t claims = 0;
  for (const StudyResult& r : results.studies) claims += r.claims.size();
  if (claims == 0) {
    p.raw("<p class=\"muted\">No claims in these results.</p>\n</section>\n");
    return;
  }
  p.raw(
      "<table class=\"claims-all\"><thead><tr><th>Claim</th><th>Seed figure</th><th>Ours</th>"
      "<th>Deviation</th><th>Verdict</th></tr></thead>\n");
  for (const StudyResult& r : results.studies) {
    if (r.claims.empty()) continue;
    p.raw("<tbody><tr class=\"group\"><th colspan=\"5\"><a href=\"#study-{}\">", r.study);
    p.text(r.title);
    p.raw("</a></th></tr>\n");
    for (const Claim& c : r.claims) {
      p.raw("<tr><td><a href=\"#claim-{}-{}\">", r.study, c.id);
      p.text(c.claim);
      p.raw("</a></td><td class=\"num\">");
      p.text(seed_text(c));
      p.raw("</td><td class=\"num\">");
      p.text(ours_text(c));
      p.raw("</td><td class=\"num\">");
      p.text(deviation_text(c));
      p.raw("</td><td class=\"{}\">", verdict_class(c.verdict));
      p.text(to_string(c.verdict));
      p.raw("</td></tr>\n");
    }
    p.raw("</tbody>\n");
  }
  p.raw("</table>\n</section>\n");
}

}  // namespace lightsim::report
