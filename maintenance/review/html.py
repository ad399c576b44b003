"""The review page: one static HTML file, no server, no external resources.

The plan's review items travel as JSON inside ``<script type="application/json">`` (every
``<``, ``>`` and ``&`` escaped as ``\\u00XX``, so no memory text can end the script element);
the inline script builds the page with ``textContent`` and ``dataset`` only (never
``innerHTML``): memory texts are untrusted. A person filters by action type and agent,
approves or rejects each action or a whole cluster, and downloads ``decisions.json``
(``{"plan_id", "approved", "rejected", "digests"}``: the digest of every decided action, so
``apply`` refuses an action changed after review) for ``memmaint apply --decisions``. The
store is named by its redacted URL only.
"""

from __future__ import annotations

import html
import json
from typing import Any

from memmaint.maintenance.core.records import format_time
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.review.planfile import PlanFile, review_items


def _json_for_script(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
.bar{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ccc;z-index:1}
.cluster{border:1px solid #bbb;border-radius:6px;margin:1em 0;padding:.5em 1em}
.action{border-top:1px dashed #ccc;padding:.5em 0}
.action[data-state=approved]{background:#eefbea}.action[data-state=rejected]{background:#fdecec}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:1em}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.4em;margin:.2em 0}
.meta{color:#555;font-size:.9em}.state{font-weight:bold;margin-left:.5em}
button{margin-right:.3em}
"""

_SCRIPT = r"""
(function(){
  var data = JSON.parse(document.getElementById('plan-data').textContent);
  var state = {};
  var byKey = {};
  function el(tag, cls, text){
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function button(cls, label, onclick){
    var b = el('button', cls, label); b.type = 'button'; b.addEventListener('click', onclick);
    return b;
  }
  function setState(key, value){
    state[key] = value;
    var node = byKey[key];
    node.dataset.state = value;
    node.querySelector('.state').textContent = value;
    update();
  }
  function decisions(){
    var out = {plan_id: data.plan_id, approved: [], rejected: [], digests: {}};
    data.items.forEach(function(it){
      if (state[it.key] === 'approved') out.approved.push(it.key);
      else if (state[it.key] === 'rejected') out.rejected.push(it.key);
      else return;
      out.digests[it.key] = it.digest;
    });
    return out;
  }
  function update(){
    var d = decisions();
    document.getElementById('counts').textContent = d.approved.length + ' approved, ' +
      d.rejected.length + ' rejected, ' +
      (data.items.length - d.approved.length - d.rejected.length) + ' undecided';
    document.getElementById('decisions-json').textContent = JSON.stringify(d);
  }
  function visible(node){ return node.style.display !== 'none'; }
  function texts(title, rows){
    var col = el('div', 'col');
    col.appendChild(el('h4', null, title));
    if (!rows.length) col.appendChild(el('p', 'meta', '(no memory stays in its place)'));
    rows.forEach(function(r){
      col.appendChild(el('div', 'meta', r.id + ' (' + r.role + ')'));
      col.appendChild(el('pre', 'text', r.text));
    });
    return col;
  }
  var root = document.getElementById('clusters');
  var clusters = {};
  var types = {}, agents = {};
  data.items.forEach(function(it){
    types[it.type] = 1; agents[it.agent] = 1;
    var box = clusters[it.cluster];
    if (!box){
      box = el('section', 'cluster'); box.dataset.cluster = it.cluster;
      var h = el('h3', null, 'cluster ' + it.cluster + ' ');
      h.appendChild(button('approve-cluster', 'approve cluster', function(){
        clusterAll(box, 'approved'); }));
      h.appendChild(button('reject-cluster', 'reject cluster', function(){
        clusterAll(box, 'rejected'); }));
      box.appendChild(h); root.appendChild(box); clusters[it.cluster] = box;
    }
    var node = el('div', 'action');
    node.dataset.key = it.key; node.dataset.type = it.type; node.dataset.agent = it.agent;
    node.dataset.state = 'undecided';
    var head = el('div', 'head');
    head.appendChild(el('strong', null, it.type));
    head.appendChild(el('span', 'meta', ' by ' + it.agent + ' - ' + it.summary + ' '));
    head.appendChild(button('approve', 'approve', function(){ setState(it.key, 'approved'); }));
    head.appendChild(button('reject', 'reject', function(){ setState(it.key, 'rejected'); }));
    head.appendChild(el('span', 'state', 'undecided'));
    node.appendChild(head);
    node.appendChild(el('p', 'reason', 'reason: ' + it.reason));
    var cols = el('div', 'cols');
    cols.appendChild(texts('before', it.before));
    cols.appendChild(texts('after', it.after));
    node.appendChild(cols);
    box.appendChild(node); byKey[it.key] = node; state[it.key] = 'undecided';
  });
  function clusterAll(box, value){
    box.querySelectorAll('.action').forEach(function(n){
      if (visible(n)) setState(n.dataset.key, value); });
  }
  function fill(id, values){
    var sel = document.getElementById(id);
    Object.keys(values).sort().forEach(function(v){
      var o = el('option', null, v); o.value = v; sel.appendChild(o); });
    sel.addEventListener('change', applyFilters);
  }
  function applyFilters(){
    var t = document.getElementById('filter-type').value;
    var a = document.getElementById('filter-agent').value;
    Object.keys(clusters).forEach(function(c){
      var any = false;
      clusters[c].querySelectorAll('.action').forEach(function(n){
        var show = (!t || n.dataset.type === t) && (!a || n.dataset.agent === a);
        n.style.display = show ? '' : 'none'; any = any || show;
      });
      clusters[c].style.display = any ? '' : 'none';
    });
  }
  fill('filter-type', types); fill('filter-agent', agents);
  function shown(value){
    data.items.forEach(function(it){
      var n = byKey[it.key];
      if (visible(n) && visible(n.parentNode) && state[it.key] === 'undecided')
        setState(it.key, value);
    });
  }
  document.getElementById('approve-rest').addEventListener('click', function(){
    shown('approved'); });
  document.getElementById('reject-rest').addEventListener('click', function(){
    shown('rejected'); });
  document.getElementById('download').addEventListener('click', function(){
    var blob = new Blob([JSON.stringify(decisions(), null, 1)], {type: 'application/json'});
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob); a.download = 'decisions.json';
    document.body.appendChild(a); a.click();
    setTimeout(function(){ URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });
  if (!data.items.length) root.appendChild(el('p', null, 'This plan changes nothing.'));
  update();
})();
"""


def render_review(pf: PlanFile) -> str:
    """The review page of a plan file (a complete HTML document)."""
    items = review_items(pf)
    data = {"plan_id": pf.plan_id, "items": items}
    from memmaint.maintenance.agents.llm_report import cost_line

    head = (f"plan {pf.plan_id} of {redact_url(pf.store_url) or 'a store'}, made "
            f"{format_time(pf.created_at)}, config {pf.config_hash}; "
            f"{len(items)} actions to review")
    cost = cost_line(pf.plan.report.get("usage") or {})
    if cost:
        head += f"; {cost}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>memmaint review {html.escape(pf.plan_id)}</title><style>{_STYLE}</style></head>
<body>
<h1>memmaint review</h1>
<p class="meta">{html.escape(head)}</p>
<div class="bar">
<label>action <select id="filter-type"><option value="">all</option></select></label>
<label>agent <select id="filter-agent"><option value="">all</option></select></label>
<button type="button" id="approve-rest">approve undecided shown</button>
<button type="button" id="reject-rest">reject undecided shown</button>
<button type="button" id="download">download decisions.json</button>
<span id="counts"></span>
</div>
<div id="clusters"></div>
<details><summary>decisions.json</summary><pre id="decisions-json"></pre></details>
<p class="meta">Apply with: memmaint apply PLAN.json --decisions decisions.json --db DB</p>
<script type="application/json" id="plan-data">{_json_for_script(data)}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
