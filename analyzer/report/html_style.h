#ifndef TRACELINT_ANALYZER_REPORT_HTML_STYLE_H_
#define TRACELINT_ANALYZER_REPORT_HTML_STYLE_H_

// The HTML report's stylesheet, inlined into every page (no external
// fonts: system font stacks only).

#include <string_view>

namespace tracelint::html {

inline constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330;
       margin: 0 auto; padding: 16px 24px 40px; max-width: 1200px; background: #fff; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #dde1e8; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, .mono, td.name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
                       font-size: 12.5px; }
.meta { color: #4a5263; }
.meta td { padding: 1px 12px 1px 0; vertical-align: top; }
.verdict { font-size: 16px; padding: 10px 14px; border-radius: 6px; background: #f2f5fa;
           border-left: 5px solid #4e79a7; margin: 12px 0; }
.summary { font-weight: 600; }
details.finding { border: 1px solid #dde1e8; border-radius: 6px; margin: 8px 0; padding: 0 12px; }
details.finding[open] { padding-bottom: 10px; }
details.finding > summary { cursor: pointer; padding: 8px 0; list-style-position: outside; }
.sev { display: inline-block; min-width: 52px; text-align: center; border-radius: 4px;
       font-size: 12px; font-weight: 600; padding: 1px 6px; margin-right: 6px; color: #fff; }
.sev-high { background: #c0392b; } .sev-medium { background: #d68910; } .sev-low { background: #7f8c8d; }
.fix { background: #eef8ee; border-left: 4px solid #59a14f; padding: 6px 10px; margin-top: 8px; }
pre.stack { background: #f6f7f9; padding: 6px 10px; overflow-x: auto; white-space: pre-wrap; }
table.data { border-collapse: collapse; margin: 6px 0 12px; width: 100%; }
/* A table wider than a narrow window scrolls in its own box, not the page. */
@media (max-width: 1000px) { table.data { display: block; overflow-x: auto; } }
table.data th, table.data td { border-bottom: 1px solid #eceff3; padding: 3px 8px; text-align: right;
                               vertical-align: top; }
table.data th { background: #f6f7f9; font-weight: 600; }
table.data td { white-space: nowrap; }
/* Names break only where BreakableName allows (<wbr> after separators), never inside a word. */
table.data td.name, table.data th.name { text-align: left; overflow-wrap: break-word;
                                         word-break: normal; white-space: normal; }
table.data td.metric { word-break: normal; white-space: nowrap; }
table.data td.wrap { white-space: normal; }
.nw { white-space: nowrap; }
.share { display: inline-block; height: 9px; background: #4e79a7; vertical-align: middle;
         margin-right: 6px; }
svg.chart { width: 100%; height: auto; display: block; margin: 6px 0 4px; }
svg.chart .grid { stroke: #e3e6ec; stroke-width: 1; }
svg.chart .axis { font-size: 11px; fill: #4a5263; }
svg.chart .lane { font-size: 10.5px; fill: #1d2330; }
svg.chart .outlier-mark { fill: #c0392b; }
svg.chart g.outlier rect { stroke: #c0392b; stroke-width: 0.8; }
svg.chart rect.hl { stroke: #000; stroke-width: 1.6; }
svg.chart g.band rect { fill: #ffd54f; fill-opacity: 0.22; stroke: #c9a400; stroke-dasharray: 3 2; }
svg.chart g.band text { font-size: 11px; font-weight: 600; fill: #8a6d00; }
.legend { font-size: 12px; color: #4a5263; margin: 2px 0 8px; }
.legend span { margin-right: 12px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px;
            vertical-align: -1px; }
.legend i.outlier-key { background: #c0392b; clip-path: polygon(0 0, 100% 0, 50% 100%); }
.note { color: #4a5263; font-size: 12.5px; }
.verdict.worse { border-left-color: #c0392b; background: #fbf0ef; }
.verdict.better { border-left-color: #59a14f; background: #eff8ee; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
.pair > div { min-width: 0; }
@media (max-width: 760px) { .pair { grid-template-columns: 1fr; } }
.chg { display: inline-block; min-width: 72px; text-align: center; border-radius: 4px;
       font-size: 12px; font-weight: 600; padding: 1px 6px; color: #fff; background: #7f8c8d; }
.chg-added { background: #c0392b; } .chg-removed { background: #59a14f; }
.chg-changed { background: #d68910; }
tr.unchanged td { color: #6b7385; }
.dbar { display: inline-block; height: 9px; vertical-align: middle; min-width: 1px; }
.dbar.up { background: #c0392b; } .dbar.down { background: #59a14f; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  /* Paper cannot be clicked open: print every finding expanded. */
  details::details-content { content-visibility: visible; display: block; }
  details > summary { list-style: none; }
  details.finding, svg.chart, table.data tr, .pair > div, .verdict { break-inside: avoid; }
  /* A page is narrower than the screen's breakpoint: keep the runs side by side. */
  .pair { grid-template-columns: 1fr 1fr; }
  h2, h3 { break-after: avoid; }
  .verdict, .sev, .chg, .share, .dbar, .legend i { print-color-adjust: exact;
                                                   -webkit-print-color-adjust: exact; }
}
)css";

}  // namespace tracelint::html

#endif  // TRACELINT_ANALYZER_REPORT_HTML_STYLE_H_
