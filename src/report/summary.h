// The report's first screen: the verdict tally, the headline findings, the contents and the
// claims grouped by study (render.cpp places them).
#pragma once

#include <string>
#include <vector>

#include "lightsim/report/render.h"
#include "report/page.h"

namespace lightsim::report {

// Up to five sentences generated from the claims: the tally, the largest deviations among the
// claims that do not hold (one per study), and where claims hold. Empty without claims.
std::vector<std::string> headline_findings(const ResultSet& results);

// <section id="summary">: what "seed" means, the verdict tally per study and in total (with a
// link to each study), the headline findings.
void summary_block(Page& p, const ResultSet& results);

// <nav id="contents">: links to the summary, the claims and every study section.
void table_of_contents(Page& p, const ResultSet& results);

// <section id="claims">: every claim, grouped by study (the study's title once per group).
void claims_by_study(Page& p, const ResultSet& results);

// The claim's figures as printed in every claims table.
std::string seed_text(const Claim& c);
std::string ours_text(const Claim& c);
std::string deviation_text(const Claim& c);
std::string verdict_class(Verdict v);

}  // namespace lightsim::report
