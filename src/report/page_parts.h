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
.verdict-depends-on-the-workload { color: #5b3a9e; }
figure { margin: 1em 0 0.4em; }
figcaption { font-weight: 600; margin-bottom: 0.3em; }
pre { background: #f6f6f8; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
#report-errors { color: #b3261e; }
.summary-block { background: #f7f8fa; border: 1px solid #dde; padding: 0.2em 1.2em 0.6em; }
.summary-block h2 { margin-top: 0.6em; }
.definition { font-size: 0.95em; }
table.tally td.num, table.tally th.num { text-align: right; }
tr.group th { background: #e9ecf2; text-align: left; font-size: 1.02em; }
nav#contents ol { columns: 2; column-gap: 2em; }
@media (max-width: 700px) {
  table { display: block; overflow-x: auto; max-width: 100%; }
  nav#contents ol { columns: 1; }
}
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

// Runs at the end of the body after `var lightsimData = {tables: {key: {columns, rows}},
// charts: [{id, title, table, spec}]};`: fills every <table data-source=key> from its table
// and renders every chart with its table's rows as data.values (each table stored once).
inline constexpr std::string_view kCharts = R"js(
(function () {
  var status = document.getElementById('report-status');
  var list = document.getElementById('report-errors');
  var charts = lightsimData.charts;
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
  // Numbers as the claims tables print them: integers below 1e7 in full, otherwise 4
  // significant digits.
  function number(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e7) return String(v);
    if (Math.abs(v) >= 1e4 && Math.abs(v) < 1e7) return v.toFixed(0);
    var s = v.toPrecision(4);
    var e = s.indexOf('e');
    var mantissa = e < 0 ? s : s.slice(0, e);
    if (mantissa.indexOf('.') >= 0) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '');
    return e < 0 ? mantissa : mantissa + s.slice(e);
  }
  function fillTable(element, table) {
    var head = element.createTHead().insertRow();
    table.columns.forEach(function (col) {
      var th = document.createElement('th');
      th.textContent = col.unit ? col.name + ' [' + col.unit + ']' : col.name;
      head.appendChild(th);
    });
    var body = element.createTBody();
    table.rows.forEach(function (row) {
      var tr = body.insertRow();
      row.forEach(function (cell) {
        var td = tr.insertCell();
        if (typeof cell === 'number') {
          td.className = 'num';
          td.textContent = number(cell);
        } else {
          td.textContent = String(cell);
        }
      });
    });
  }
  function values(table) {
    return table.rows.map(function (row) {
      var object = {};
      table.columns.forEach(function (col, i) { object[col.name] = row[i]; });
      return object;
    });
  }
  function finish() {
    status.dataset.rendered = rendered;
    status.dataset.done = '1';
    status.textContent = rendered + ' of ' + charts.length + ' chart(s) rendered';
    window.lightsimShowProblems();
  }
  status.dataset.expected = charts.length;
  document.querySelectorAll('table[data-source]').forEach(function (element) {
    fillTable(element, lightsimData.tables[element.dataset.source]);
  });
  window.lightsimShowProblems();
  if (typeof vegaEmbed !== 'function') {
    window.lightsimRecord('error', 'the chart library (vega-embed) did not load');
    finish();
    return;
  }
  Promise.all(charts.map(function (chart) {
    var spec = Object.assign({}, chart.spec, {data: {values: values(lightsimData.tables[chart.table])}});
    return vegaEmbed('#' + chart.id, spec, {mode: 'vega-lite', renderer: 'svg', actions: false})
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
