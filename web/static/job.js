// Makes the job page live: polls the JSON API and keeps the state, title, progress, counters,
// elapsed time, stored count, pager, new solutions and grid up to date, in the page's language
// (the server hands its sentences over in data-strings). When the job ends it reloads once so
// the server draws the final answer. Writes with textContent only: nothing is parsed as HTML.
(function () {
  "use strict";
  var root = document.getElementById("job");
  if (!root || root.dataset.done === "true") { return; }
  var t = JSON.parse(root.dataset.strings || "{}");
  var lang = document.documentElement.lang || "en";
  var numbers = new Intl.NumberFormat(lang);
  var tenths = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  var pageSize = parseInt(root.dataset.pageSize, 10) || 50;
  var offset = parseInt(root.dataset.offset, 10) || 0;
  var pageNo = parseInt(root.dataset.pageNo, 10) || 1;
  var table = document.getElementById("solutions");
  var body = table ? table.tBodies[0] : null;
  var fetching = false;
  // Set once the reader goes elsewhere (a link, a form): a reload then would cancel that.
  var leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });
  var clock = { elapsed: parseFloat(root.dataset.elapsed), at: Date.now(), running: false };

  function byId(id) { return document.getElementById(id); }
  function setText(id, text) { var el = byId(id); if (el && el.textContent !== text) { el.textContent = text; } }
  function fill(pattern, values) {
    return String(pattern || "").replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }
  function num(n) { return numbers.format(n || 0); }
  function percent(p) { return tenths.format(100 * (p || 0)) + "%"; }
  function digit(d) { return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".charAt(d) || String(d); }
  function duration(s) {
    if (s === null || s === undefined || isNaN(s)) { return t.unknown; }
    var whole = Math.max(0, Math.round(s));
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), sec = whole % 60;
    if (h) { return fill(t.h, { h: num(h), m: m }); }
    if (m) { return fill(sec ? t.ms : t.m, { m: m, s: sec }); }
    return fill(t.s, { s: sec });
  }
  function plural(pair, n) { return fill(pair[n === 1 ? 0 : 1], { count: num(n) }); }
  function clockTime(value) {
    var when = typeof value === "number" ? new Date(value * 1000) : new Date(value);
    if (!value || isNaN(when.getTime())) { return "?"; }
    return when.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
  }

  function queueLine(job) {
    var parts = [t.queued];
    if (job.queue_position !== undefined && job.queue_position !== null) {
      parts.push(fill(t.position, { pos: num(job.queue_position) }));
    }
    var start = job.expected_start;
    if (typeof start === "number" && start < 1e8) { parts.push(fill(t.start_in, { wait: duration(start) })); }
    else if (start) { parts.push(fill(t.start_at, { time: clockTime(start) })); }
    return parts.join(t.gap);  // no space between Japanese sentences
  }

  function statusLine(job) {
    var n = job.solutions_found;
    switch (job.state) {
      case "queued": return queueLine(job);
      case "running": return fill(t.running, { percent: percent(job.progress) });
      case "succeeded":
        if (!n) { return t.none; }
        return job.mode === "solve" ? t.solved : plural(t.finished, n);
      case "canceled": return plural(t.canceled, n);
      default: return job.error === "time limit" ? t.stopped_limit : t.stopped;
    }
  }

  function etaLine(job) {
    if (job.state !== "running") { return ""; }
    if (job.eta_exceeds_limit || job.limit_at) {
      // The share done when the limit stops it, at the rate so far.
      var atLimit = job.elapsed > 0 && job.eta !== null ?
        Math.min(1, job.progress * (job.elapsed + job.eta) / job.elapsed) : job.progress;
      return fill(t.limit, { limit: t.limit_len || "", time: clockTime(job.limit_at), percent: percent(atLimit) });
    }
    return job.eta === null || job.eta === undefined ? t.eta_unknown : fill(t.eta, { eta: duration(job.eta) });
  }

  function show(job) {
    var label = (t.states || {})[job.state] || job.state;
    var badge = byId("state");
    if (badge) { badge.textContent = label; badge.className = "badge state-" + job.state; badge.dataset.state = job.state; }
    document.title = label + " \u00b7 " + root.dataset.puzzle;
    var bar = byId("progress");
    if (bar) { bar.value = job.progress || 0; bar.textContent = percent(job.progress); bar.setAttribute("aria-valuetext", percent(job.progress)); }
    setText("percent", percent(job.progress));
    var eta = byId("eta"), line = etaLine(job);
    if (eta) { eta.hidden = !line; setText("eta", line); }
    setText("count", num(job.solutions_found));
    setText("nodes", num(job.nodes));
    setText("status", statusLine(job));
    clock = { elapsed: job.elapsed, at: Date.now(), running: job.state === "running" };
    tick();
  }

  function tick() {
    if (clock.elapsed === null || clock.elapsed === undefined || isNaN(clock.elapsed)) { return; }
    var extra = clock.running ? (Date.now() - clock.at) / 1000 : 0;
    setText("elapsed", duration(clock.elapsed + extra));
  }

  function showStored(total) {
    setText("stored", num(total));
    var last = Math.max(1, Math.ceil(total / pageSize));
    setText("page-count", fill(t.pages, { last: num(last) }));
    var input = byId("page-input");
    if (input) { input.max = String(last); }
    var next = byId("next-page");
    if (next) { next.hidden = offset + pageSize >= total; }
    var shown = body ? body.rows.length : 0;
    if (total && shown) {
      setText("range", fill(t.range, { first: num(offset + 1), last: num(offset + shown), total: num(total) }));
    }
  }

  function addRow(number, solution, letters) {
    var tr = document.createElement("tr");
    var th = document.createElement("th");
    th.scope = "row";
    var a = document.createElement("a");
    a.href = "?page=" + pageNo + "&pick=" + number + "#answer";
    a.textContent = num(number);
    th.appendChild(a);
    tr.appendChild(th);
    for (var i = 0; i < letters.length; i++) {
      var td = document.createElement("td");
      td.textContent = digit(solution[letters.charAt(i)]);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }

  function appendSolutions() {
    // Only the page that is not yet full grows; the others just learn the new total.
    if (!body || fetching) { return; }
    fetching = true;
    var have = body.rows.length;
    var limit = Math.max(1, pageSize - have);
    var url = root.dataset.solutions + "?offset=" + (offset + have) + "&limit=" + limit;
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (page) {
        if (!page || body.rows.length !== have) { return; }
        var letters = table.dataset.letters || "";
        if (have < pageSize) {
          page.items.forEach(function (item, i) { addRow(offset + have + i + 1, item.solution, letters); });
        }
        showStored(page.total);
      })
      .catch(function () {})
      .then(function () { fetching = false; });
  }

  function showGrid() {
    var grid = byId("grid");
    if (!grid) { return; }
    fetch(root.dataset.grid, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        Array.prototype.forEach.call(grid.tBodies[0].rows, function (row) {
          var counts = data.letters[row.cells[0].textContent] || [];
          for (var d = 0; d < counts.length && d + 1 < row.cells.length; d++) {
            var cell = row.cells[d + 1];
            cell.textContent = num(counts[d]);
            // No "forced" highlight while running: a later solution may still add a digit.
            cell.className = counts[d] === 0 ? "zero" : "";
          }
        });
      })
      .catch(function () {});
  }

  function remember(job) {
    if (window.alphameticJobs) { window.alphameticJobs.record(job); }
  }

  // Each status request is held by the server up to a second (?wait=1) and answered as soon
  // as the job ends, so the end shows at once; the counters still refresh every second.
  function poll() {
    var asked = Date.now();
    fetch(root.dataset.api + "?wait=1", { headers: { Accept: "application/json" } })
      .then(function (r) {
        var wait = parseInt(r.headers.get("Retry-After"), 10);
        return r.json().then(function (job) { return { ok: r.ok, job: job, wait: wait }; });
      })
      .then(function (res) {
        if (!res.ok) { setTimeout(poll, 3000); return; }
        show(res.job);
        remember(res.job);
        appendSolutions();
        showGrid();
        if (["succeeded", "failed", "canceled"].indexOf(res.job.state) >= 0) {
          if (!leaving) { window.location.reload(); } // not over the reader's own navigation
          return;
        }
        // A server with no wait slot free answers at once: then wait out Retry-After here.
        var pause = Math.min(Math.max(res.wait || 1, 1), 5) * 1000 - (Date.now() - asked);
        setTimeout(poll, Math.max(pause, 0));
      })
      .catch(function () { setTimeout(poll, 3000); });
  }

  setInterval(tick, 1000);
  poll();
}());
