"use strict";
// ragdiff's HTML report (docs/contract.md §9.10): the changed-queries table over
// every changed query, sortable and filterable; a row opens both ranked lists.
// Everything comes from the JSON data block; text is set with textContent only.
(function () {
  var data = JSON.parse(document.getElementById("ragdiff-data").textContent);
  var table = document.getElementById("changed-table");
  var tbody = table.tBodies[0];
  var controls = document.getElementById("controls");
  var more = document.getElementById("static-more");
  if (more) { more.hidden = true; }
  var PAGE = 500;
  var state = { status: "", tag: "", suspect: false, id: "", key: null, dir: 1, limit: PAGE };
  var open = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function fmt(x) { return (x > 0 ? "+" : "") + x.toFixed(4); }
  function rank(r) { return r === null ? "-" : String(r); }
  function tagsOf(row) { return row.tags ? row.tags.split(";") : []; }

  var columns = [
    { name: "id", value: function (r) { return r.id; } },
    { name: "status", value: function (r) { return r.status; } },
    { name: "tags", value: function (r) { return r.tags; } },
    { name: "suspect", value: function (r) { return r.suspect ? 1 : 0; } },
    { name: "first rel", value: function (r) { return r.rank[1] === null ? 1e9 : r.rank[1]; } },
    { name: "ΔRR", value: function (r) { return r.d[0]; } },
    { name: "ΔRecall", value: function (r) { return r.d[1]; } },
    { name: "ΔnDCG", value: function (r) { return r.d[2]; } }
  ];
  // A Δ column per named measure (--measure), its delta at r.d[3 + i].
  (data.measures || []).forEach(function (m, i) {
    columns.push({ name: "Δ" + m, value: function (r) { return r.d[3 + i]; } });
  });

  function select(label, values, on) {
    var wrap = el("label", null, label + " ");
    var s = el("select");
    s.appendChild(el("option", null, "all")).value = "";
    values.forEach(function (v) { s.appendChild(el("option", null, v)).value = v; });
    s.addEventListener("change", function () { on(s.value); });
    wrap.appendChild(s);
    return wrap;
  }

  function buildControls() {
    var statuses = {}, tags = {};
    data.rows.forEach(function (r) {
      statuses[r.status] = 1;
      tagsOf(r).forEach(function (t) { tags[t] = 1; });
    });
    var st = select("status", Object.keys(statuses).sort(), function (v) { state.status = v; refresh(); });
    st.querySelector("select").id = "filter-status";
    controls.appendChild(st);
    var tg = select("tag", Object.keys(tags).sort(), function (v) { state.tag = v; refresh(); });
    tg.querySelector("select").id = "filter-tag";
    controls.appendChild(tg);
    var sus = el("label", null, " suspect only");
    var box = el("input");
    box.type = "checkbox";
    box.id = "filter-suspect";
    box.addEventListener("change", function () { state.suspect = box.checked; refresh(); });
    sus.insertBefore(box, sus.firstChild);
    controls.appendChild(sus);
    var search = el("input");
    search.type = "search";
    search.placeholder = "id contains";
    search.id = "filter-id";
    search.addEventListener("input", function () { state.id = search.value; refresh(); });
    controls.appendChild(search);
    controls.appendChild(el("span", "shown-count"));
    controls.hidden = false;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.classList.add("sortable");
      th.addEventListener("click", function () {
        state.dir = state.key === i ? -state.dir : 1;
        state.key = i;
        Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.classList.remove("asc", "desc"); });
        th.classList.add(state.dir > 0 ? "asc" : "desc");
        refresh();
      });
    });
  }

  function matches(r) {
    if (state.status && r.status !== state.status) { return false; }
    if (state.tag && tagsOf(r).indexOf(state.tag) < 0) { return false; }
    if (state.suspect && !r.suspect) { return false; }
    if (state.id && r.id.indexOf(state.id) < 0) { return false; }
    return true;
  }

  function rowOf(r) {
    var tr = el("tr", "row " + r.status);
    tr.dataset.id = r.id;
    [r.id, r.status + (r.errored ? " · " + r.errored : ""), r.tags, r.suspect ? "suspect" : "",
     rank(r.rank[0]) + " → " + rank(r.rank[1])
    ].concat(r.d.map(fmt)).forEach(function (text, i) { tr.appendChild(el("td", i >= 4 ? "n" : null, text)); });
    tr.addEventListener("click", function () { toggle(r, tr); });
    return tr;
  }

  function label(grade) {
    if (grade === null) { return ["unjudged", "unjudged"]; }
    if (grade >= data.min_grade) { return ["rel", "relevant, grade " + grade]; }
    return ["nonrel", "judged not relevant"];
  }

  // A list from the data block: [docs tab-joined, [[position, grade], ...]].
  function unpack(packed) {
    var docs = packed[0] === "" ? [] : packed[0].split("\t");
    var grades = {};
    packed[1].forEach(function (pg) { grades[pg[0]] = pg[1]; });
    return docs.map(function (d, i) { return { doc: d, grade: i in grades ? grades[i] : null }; });
  }

  function rankIn(list) {
    var at = {};
    list.forEach(function (d, i) { at[d.doc] = i + 1; });
    return at;
  }

  // Marked: relevant in this list's top k and not in the other's (lost or gained).
  function listOf(title, list, other, otherName, mark) {
    var box = el("div", "list");
    box.appendChild(el("h3", null, title));
    if (!list.length) { box.appendChild(el("p", null, "no docs returned")); return box; }
    var theirs = rankIn(other);
    var ol = el("ol");
    list.forEach(function (d, i) {
      var lab = label(d.grade);
      var o = theirs[d.doc];
      var marked = lab[0] === "rel" && i < data.k && !(o && o <= data.k);
      var li = el("li", (i + 1 === data.k ? "cut " : "") + (marked ? mark : ""));
      li.appendChild(el("code", null, d.doc));
      if (data.titles[d.doc] !== undefined) { li.appendChild(el("span", "title", " " + data.titles[d.doc])); }
      li.appendChild(el("span", lab[0], " · " + lab[1]));
      li.appendChild(el("span", "other", " · " + otherName + ": " + (o ? "rank " + o : "not in its top " + data.shown)));
      if (marked) { li.appendChild(el("strong", null, " · " + mark)); }
      ol.appendChild(li);
    });
    box.appendChild(ol);
    return box;
  }

  function toggle(r, tr) {
    var next = tr.nextSibling;
    if (next && next.classList && next.classList.contains("detail")) {
      next.parentNode.removeChild(next);
      delete open[r.id];
      return;
    }
    open[r.id] = 1;
    var detail = el("tr", "detail");
    var td = el("td");
    td.colSpan = columns.length;
    var lists = el("div", "lists");
    if (!r.lists) {
      lists.appendChild(el("p", null, "the lists were not read"));
    } else {
      var b = unpack(r.lists[0]), c = unpack(r.lists[1]);
      lists.appendChild(listOf("baseline (top " + data.shown + ", k = " + data.k + ")", b, c, "candidate", "lost"));
      lists.appendChild(listOf("candidate (top " + data.shown + ", k = " + data.k + ")", c, b, "baseline", "gained"));
    }
    td.appendChild(lists);
    detail.appendChild(td);
    tr.parentNode.insertBefore(detail, tr.nextSibling);
  }

  function refresh() {
    var rows = data.rows.filter(matches);
    if (state.key !== null) {
      var v = columns[state.key].value;
      rows = rows.slice().sort(function (a, b) {
        var x = v(a), y = v(b);
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
    var frag = document.createDocumentFragment();
    rows.slice(0, state.limit).forEach(function (r) {
      var tr = rowOf(r);
      frag.appendChild(tr);
    });
    tbody.appendChild(frag);
    Array.prototype.forEach.call(tbody.rows, function (tr) {
      if (open[tr.dataset.id]) { tr.click(); }
    });
    var count = controls.querySelector(".shown-count");
    count.textContent = rows.length + " of " + data.rows.length + " changed queries";
    var old = document.getElementById("show-more");
    if (old) { old.parentNode.removeChild(old); }
    if (rows.length > state.limit) {
      var b = el("button", null, "show " + Math.min(PAGE, rows.length - state.limit) + " more");
      b.id = "show-more";
      b.addEventListener("click", function () { state.limit += PAGE; refresh(); });
      table.parentNode.insertBefore(b, table.nextSibling);
    }
  }

  buildControls();
  refresh();
  document.body.dataset.ready = "1";
})();
