// "Your recent jobs": the jobs this browser opened, kept in its localStorage only (the server
// keeps no list of anyone's jobs). Job pages record themselves; the form page lists them with
// their state, asking the API for the state of those not finished when last seen.
(function () {
  "use strict";
  var KEY = "alphametic.jobs";
  var MAX = 20;
  var DONE = ["succeeded", "failed", "canceled"];

  function load() {
    try {
      var list = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      return Array.isArray(list) ? list : [];
    } catch (e) { return []; }
  }
  function save(list) {
    try { window.localStorage.setItem(KEY, JSON.stringify(list.slice(0, MAX))); } catch (e) {}
  }
  function record(job) {
    if (!job || !job.id) { return; }
    var list = load();
    var entry = {
      id: job.id, puzzle: job.puzzle, mode: job.mode, options: job.options || {},
      state: job.state, at: Date.now()
    };
    for (var i = 0; i < list.length; i++) {
      if (list[i].id === job.id) {
        entry.at = list[i].at;
        if (!job.options) { entry.options = list[i].options || {}; }
        list[i] = entry; save(list); return;
      }
    }
    list.unshift(entry);
    save(list);
  }
  function forget(id) { save(load().filter(function (j) { return j.id !== id; })); }
  window.alphameticJobs = { record: record, load: load };

  function recordThisPage() {
    var root = document.getElementById("job");
    if (!root) { return; }
    var d = root.dataset;
    var options = {};
    try { options = JSON.parse(d.options || "{}"); } catch (e) {}
    record({ id: d.id, puzzle: d.puzzle, mode: d.mode, options: options, state: d.state });
  }

  function item(job, section, labels) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = section.dataset.page + encodeURIComponent(job.id);
    var code = document.createElement("code");
    code.textContent = job.puzzle;
    a.appendChild(code);
    li.appendChild(a);
    var state = document.createElement("span");
    state.className = "badge state-" + job.state;
    state.textContent = labels[job.state] || job.state;
    li.appendChild(document.createTextNode(" "));
    li.appendChild(state);
    // What tells two lines of one puzzle apart: the mode, the options, when it was opened.
    var modes = JSON.parse(section.dataset.modes || "{}");
    var options = job.options || {};
    var parts = [modes[job.mode] || job.mode || ""];
    if (options.base && options.base !== 10) {
      parts.push((section.dataset.base || "base {base}").replace("{base}", options.base));
    }
    if (options.leading_zeros && options.leading_zeros !== "multi-letter") {
      parts.push(options.leading_zeros);
    }
    var fixed = options.fixed || {};
    var known = Object.keys(fixed).sort().map(function (k) { return k + "=" + fixed[k]; });
    if (known.length) { parts.push(known.join(", ")); }
    if (job.at) {
      var lang = document.documentElement.lang || undefined;
      parts.push(new Date(job.at).toLocaleString(lang, { dateStyle: "short", timeStyle: "short" }));
    }
    var about = document.createElement("span");
    about.className = "note job-about";
    about.textContent = " " + parts.filter(Boolean).join(" · ");
    li.appendChild(about);
    return li;
  }

  function refresh(job, section) {
    fetch(section.dataset.api + "/" + encodeURIComponent(job.id), { headers: { Accept: "application/json" } })
      .then(function (r) {
        if (r.status === 404) { forget(job.id); return null; }
        return r.ok ? r.json() : null;
      })
      .then(function (fresh) { if (fresh) { record(fresh); } draw(section, false); })
      .catch(function () {});
  }

  function draw(section, ask) {
    var labels = JSON.parse(section.dataset.states || "{}");
    var ul = document.getElementById("your-jobs-list");
    var list = load();
    while (ul.firstChild) { ul.removeChild(ul.firstChild); }
    list.forEach(function (job) {
      ul.appendChild(item(job, section, labels));
      if (ask && DONE.indexOf(job.state) < 0) { refresh(job, section); }
    });
    section.hidden = list.length === 0;
  }

  function showList() {
    var section = document.getElementById("your-jobs");
    if (!section) { return; }
    draw(section, true);
    var button = document.getElementById("forget-jobs");
    if (button) {
      button.addEventListener("click", function () { save([]); draw(section, false); });
    }
  }

  document.addEventListener("DOMContentLoaded", function () { recordThisPage(); showList(); });
}());
