// Upgrades the job page to live updates: polls the JSON API, fills in progress and new
// solutions, and reloads once when the job ends so the server draws the final answer.
(function () {
  "use strict";
  var root = document.getElementById("job");
  if (!root || root.dataset.done === "true") { return; }
  var pageSize = parseInt(root.dataset.pageSize, 10) || 50;
  var offset = parseInt(root.dataset.offset, 10) || 0;
  var list = document.getElementById("solutions");
  var fetching = false;

  function byId(id) { return document.getElementById(id); }
  function setText(id, text) { var el = byId(id); if (el) { el.textContent = text; } }

  function percent(p) { return (100 * (p || 0)).toFixed(1) + "%"; }
  function duration(s) {
    if (s === null || s === undefined) { return "unknown"; }
    var whole = Math.max(0, Math.round(s));
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), sec = whole % 60;
    if (h) { return h + " h " + m + " min"; }
    return m ? m + " min " + sec + " s" : sec + " s";
  }
  function plural(n) { return n === 1 ? "solution" : "solutions"; }

  function statusLine(job) {
    var n = job.solutions_found;
    switch (job.state) {
      case "queued": return "Waiting for a worker.";
      case "running": return "Searching: " + percent(job.progress) + " done, " + n + " found.";
      case "succeeded": return "Finished: " + n + " " + plural(n) + ".";
      case "canceled": return "Canceled after " + n + " " + plural(n) + ".";
      default: return "Failed.";
    }
  }

  function show(job) {
    var badge = byId("state");
    if (badge) { badge.textContent = job.state; badge.className = "badge state-" + job.state; }
    var bar = byId("progress");
    if (bar) { bar.value = job.progress || 0; bar.textContent = percent(job.progress); }
    setText("percent", percent(job.progress));
    setText("eta", duration(job.eta));
    setText("count", String(job.solutions_found));
    setText("count-word", plural(job.solutions_found));
    var status = byId("status");
    var line = statusLine(job);
    if (status && status.textContent !== line) { status.textContent = line; }
  }

  function appendSolutions() {
    // Only the last page grows; a full page has nothing to add.
    if (!list || fetching || list.children.length >= pageSize) { return; }
    fetching = true;
    var have = list.children.length;
    var url = root.dataset.solutions + "?offset=" + (offset + have) + "&limit=" + (pageSize - have);
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (page) {
        if (!page || list.children.length !== have) { return; }
        page.items.forEach(function (item) {
          var li = document.createElement("li");
          var code = document.createElement("code");
          code.textContent = item.line;  // textContent: never parsed as HTML
          li.appendChild(code);
          list.appendChild(li);
        });
        if (page.total) {
          setText("range", (offset + 1) + "\u2013" + (offset + list.children.length) +
            " of " + page.total + " stored");
        }
      })
      .catch(function () {})
      .then(function () { fetching = false; });
  }

  function showGrid() {
    var table = byId("grid");
    if (!table) { return; }
    fetch(root.dataset.grid, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (grid) {
        if (!grid) { return; }
        Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
          var counts = grid.letters[row.cells[0].textContent] || [];
          for (var d = 0; d < counts.length && d + 1 < row.cells.length; d++) {
            var cell = row.cells[d + 1];
            cell.textContent = String(counts[d]);
            var forced = grid.total > 0 && counts[d] === grid.total;
            cell.className = forced ? "forced" : (counts[d] === 0 ? "zero" : "");
          }
        });
      })
      .catch(function () {});
  }

  // Each status request is held by the server up to a second (?wait=1) and answered as soon
  // as the job ends, so the end shows at once; progress still refreshes every second.
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
        appendSolutions();
        showGrid();
        if (["succeeded", "failed", "canceled"].indexOf(res.job.state) >= 0) {
          window.location.reload();
          return;
        }
        // A server with no wait slot free answers at once: then wait out Retry-After here.
        var pause = Math.min(Math.max(res.wait || 1, 1), 5) * 1000 - (Date.now() - asked);
        setTimeout(poll, Math.max(pause, 0));
      })
      .catch(function () { setTimeout(poll, 3000); });
  }

  poll();
}());
