// Fixed parts of report.html: the style sheet and the two scripts (error recorder, charts).
#pragma once

#include <string_view>

namespace lightsim::report::page {

inline constexpr std::string_view kStyle = R"css(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
       max-width: 1100px; margin: 2em auto; padding: 0 1.2em; }
h1 { font-size: 1.8em; margin-bottom: 0.2em; }
h2 { margin-top: 2.2em; border-bottom: 2px solid #ddd; padding-bottom: 0.2em; }
.muted, .meta { color: #666; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.verdict { font-weight: 600; white-space: nowrap; }
.verdict-holds { color: #17663a; }
.verdict-holds-under-conditions { color: #8a5a00; }
.verdict-does-not-hold { color: #b3261e; }
.verdict-not-comparable { color: #555; }
figure { margin: 1em 0 0.4em; }
figcaption { font-weight: 600; margin-bottom: 0.3em; }
pre { background: #f6f6f8; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
#report-errors { color: #b3261e; }
.empty { padding: 0.8em; background: #fff6e0; border: 1px solid #f0d090; }
)css";

// Runs before the chart libraries: records every script error and warning so a reader (and
// the browser test) can see them in the page.
inline constexpr std::string_view kRecorder = R"js(
window.lightsimProblems = [];
(function () {
  function record(level, text) {
    window.lightsimProblems.push({level: level, text: String(text)});
    if (window.lightsimShowProblems) window.lightsimShowProblems();
  }
  window.lightsimRecord = record;
  window.addEventListener('error', function (e) { record('error', 'script error: ' + e.message); });
  window.addEventListener('unhandledrejection', function (e) {
    record('error', 'unhandled rejection: ' + (e.reason && e.reason.message || e.reason));
  });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      record(level === 'warn' ? 'warning' : 'error',
             'console.' + level + ': ' + Array.prototype.join.call(arguments, ' '));
      original.apply(console, arguments);
    };
  });
})();
)js";

// Runs at the end of the body after `var lightsimCharts = [{id, title, spec}, ...];`.
inline constexpr std::string_view kCharts = R"js(
(function () {
  var status = document.getElementById('report-status');
  var list = document.getElementById('report-errors');
  var rendered = 0;
  window.lightsimShowProblems = function () {
    var problems = window.lightsimProblems;
    var errors = problems.filter(function (p) { return p.level === 'error'; }).length;
    status.dataset.errors = errors;
    status.dataset.warnings = problems.length - errors;
    list.textContent = '';
    problems.forEach(function (p) {
      var item = document.createElement('li');
      item.textContent = p.level + ': ' + p.text;
      list.appendChild(item);
    });
    list.hidden = problems.length === 0;
  };
  function finish() {
    status.dataset.rendered = rendered;
    status.dataset.done = '1';
    status.textContent = rendered + ' of ' + lightsimCharts.length + ' chart(s) rendered';
    window.lightsimShowProblems();
  }
  status.dataset.expected = lightsimCharts.length;
  window.lightsimShowProblems();
  if (typeof vegaEmbed !== 'function') {
    window.lightsimRecord('error', 'the chart library (vega-embed) did not load');
    finish();
    return;
  }
  Promise.all(lightsimCharts.map(function (chart) {
    return vegaEmbed('#' + chart.id, chart.spec, {mode: 'vega-lite', renderer: 'svg', actions: false})
      .then(function () {
        rendered += 1;
        document.getElementById(chart.id).dataset.rendered = '1';
      })
      .catch(function (e) {
        window.lightsimRecord('error', 'chart "' + chart.title + '": ' + (e && e.message || e));
      });
  })).then(finish);
})();
)js";

}  // namespace lightsim::report::page
