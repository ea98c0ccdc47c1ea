// The viewer's CSS and the index page's script. The script builds every element with
// createElement and textContent: item fields (model names, task names) are never parsed as HTML.
#include "ptxbench/report/view/view_html.hpp"

namespace ptxbench::report::view {

std::string_view style() {
  return R"css(
* { box-sizing: border-box; }
body { margin: 0; background: #fafafa; color: #1d1d1d;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
main { max-width: 1360px; margin: 0 auto; padding: 18px 24px 48px; }
h1 { font-size: 22px; margin: 4px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #d9d9d9; }
h3 { font-size: 14px; margin: 14px 0 4px; }
a { color: #0060a0; }
p.back { margin: 0; }
.facts { color: #444; margin: 2px 0 8px; }
.facts b { color: #1d1d1d; }
.note { color: #555; font-style: italic; margin: 4px 0; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; margin: 4px 0 8px; }
table { border-collapse: collapse; font-size: 12.5px; width: 100%; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { background: #f1f3f5; font-weight: 600; white-space: nowrap; }
th.sortable { cursor: pointer; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td { overflow-wrap: break-word; }
mark.extracted { background: #fff8d6; }
details { margin: 4px 0 8px; }
summary { cursor: pointer; color: #0060a0; }
pre { margin: 4px 0; padding: 8px 10px; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px;
  font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 640px; overflow: auto; }
pre.code { background: #fdfdf7; }
pre.code .k { color: #7a2bb0; font-weight: 600; } pre.code .c { color: #6a737d; font-style: italic; }
pre.code .s { color: #0a6b2f; } pre.code .p { color: #a0522d; } pre.code .n { color: #005cc5; }
pre.feedback { background: #f5f9ff; }
pre.diff ins { background: #e6ffec; text-decoration: none; display: block; }
pre.diff del { background: #ffebe9; text-decoration: none; display: block; }
pre.diff .hunk { color: #888; }
section.turn { background: #fff; border: 1px solid #dcdcdc; border-radius: 8px; padding: 4px 14px 10px; margin: 14px 0; }
section.turn > h2 { border: 0; margin: 8px 0 4px; }
.verdict { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600;
  background: #eee; color: #333; }
.v-PASSED { background: #d3f5dc; color: #11592a; }
.v-INSTRUCTIONS_NOT_EXECUTED { background: #fff1c7; color: #6a4d00; }
.v-NOT_RUN { background: #e8eef7; color: #2f4a70; }
.v-COMPILE_ERROR, .v-NO_CODE, .v-FORBIDDEN { background: #fde2e1; color: #7d1a14; }
.v-INCORRECT_NUMERICAL, .v-INCORRECT_SHAPE, .v-INCORRECT_DTYPE, .v-RUNTIME_ERROR, .v-TIMEOUT,
.v-SANITIZER_ERROR { background: #fbd9c9; color: #7a2e0b; }
.filters { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 8px 0; }
.filters label { font-size: 12.5px; color: #444; }
.filters select { max-width: 260px; }
#pager button { margin-right: 6px; }
)css";
}

std::string_view index_script() {
  return R"js("use strict";
(function () {
  const data = window.PTXBENCH_VIEW;
  const pageSize = 100;
  const status = document.getElementById("count");
  if (!data) { status.textContent = "index.js did not load"; return; }
  const cols = data.columns;  // item = [page, title, ...values in cols order]
  const colIndex = name => cols.indexOf(name) + 2;
  function readHash() {
    const out = {};
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      if (!part) continue;
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      out[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1));
    }
    return out;
  }
  function writeHash(state) {
    const parts = [];
    for (const [k, v] of Object.entries(state)) {
      if (v !== "" && v !== undefined) parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    }
    location.hash = parts.join("&");
  }
  function matches(item, state) {
    for (const f of data.filters) {
      const want = state[f.key];
      if (!want) continue;
      const value = item[colIndex(f.column)];
      if (f.token ? !value.split(" ").includes(want) : value !== want) return false;
    }
    return true;
  }
  const form = document.getElementById("filters");
  const selects = {};
  for (const f of data.filters) {
    const values = new Set();
    for (const item of data.items) {
      const value = item[colIndex(f.column)];
      for (const v of f.token ? value.split(" ") : [value]) if (v) values.add(v);
    }
    const label = document.createElement("label");
    label.textContent = f.key + " ";
    const select = document.createElement("select");
    select.name = f.key;
    const any = document.createElement("option");
    any.value = ""; any.textContent = "(any)";
    select.appendChild(any);
    for (const v of [...values].sort()) {
      const option = document.createElement("option");
      option.value = v; option.textContent = v;
      select.appendChild(option);
    }
    select.addEventListener("change", () => {
      const state = readHash();
      state[f.key] = select.value; delete state.page;
      writeHash(state);
    });
    label.appendChild(select);
    form.appendChild(label);
    selects[f.key] = select;
  }
  const head = document.getElementById("head");
  for (const name of ["item"].concat(cols)) {
    const th = document.createElement("th");
    th.textContent = name;
    head.appendChild(th);
  }
  function render() {
    const state = readHash();
    for (const [key, select] of Object.entries(selects)) {
      const want = state[key] || "";
      if (want && ![...select.options].some(o => o.value === want)) {
        const option = document.createElement("option");
        option.value = want; option.textContent = want;
        select.appendChild(option);
      }
      select.value = want;
    }
    const shown = data.items.filter(item => matches(item, state));
    const pages = Math.max(1, Math.ceil(shown.length / pageSize));
    const page = Math.min(pages, Math.max(1, parseInt(state.page || "1", 10) || 1));
    const body = document.getElementById("rows");
    body.replaceChildren();
    for (const item of shown.slice((page - 1) * pageSize, page * pageSize)) {
      const tr = document.createElement("tr");
      const first = document.createElement("td");
      const a = document.createElement("a");
      a.className = "item"; a.href = item[0]; a.textContent = item[1];
      first.appendChild(a);
      tr.appendChild(first);
      for (let i = 2; i < item.length; ++i) {
        const td = document.createElement("td");
        td.textContent = item[i];
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    status.textContent = shown.length + " of " + data.items.length + " items" +
        (pages > 1 ? ", page " + page + " of " + pages : "");
    const pager = document.getElementById("pager");
    pager.replaceChildren();
    for (const [text, target] of [["previous", page - 1], ["next", page + 1]]) {
      if (target < 1 || target > pages) continue;
      const b = document.createElement("button");
      b.textContent = text;
      b.addEventListener("click", () => { const s = readHash(); s.page = String(target); writeHash(s); });
      pager.appendChild(b);
    }
    document.body.dataset.shown = String(shown.length);
  }
  window.addEventListener("hashchange", render);
  render();
})();
)js";
}

}  // namespace ptxbench::report::view
