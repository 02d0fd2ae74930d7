// "How to solve it" on the job page, one step at a time. The server draws every step, so the
// page reads in full without JavaScript; this script hides all but the first and shows the
// "Next step" and "Show all" buttons. It only toggles `hidden` and sets textContent. While a
// worker still works the steps out, it asks the API for them and reloads once they are ready.
(function () {
  "use strict";
  var section = document.getElementById("explain");
  if (!section) { return; }
  if (section.dataset.pending !== undefined) { waitForSteps(section.dataset.poll); return; }
  var steps = Array.prototype.slice.call(section.querySelectorAll("#steps > li"));
  var controls = document.getElementById("explain-controls");
  var next = document.getElementById("next-step");
  var all = document.getElementById("all-steps");
  var counter = document.getElementById("step-counter");
  var pattern = section.dataset.counter || "%(shown)s / %(total)s";
  if (steps.length < 2 || !controls || !next || !all) { return; }
  var shown = 1;

  function say() {
    var values = { shown: String(shown), total: String(steps.length) };
    counter.textContent = pattern.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  // A disabled button loses focus to <body>, and keyboard and screen-reader users lose their
  // place: move it first to the step they are to read (focusable by script only).
  function keepFocus(step) {
    var active = document.activeElement;
    if (active !== next && active !== all) { return; }
    step.tabIndex = -1;
    step.focus();
  }

  function reveal(upTo) {
    var first = shown;
    for (var i = shown; i < upTo; i++) { steps[i].hidden = false; }
    shown = upTo;
    say();
    if (shown >= steps.length) {
      // "Next step" leads on to the last step, "Show all" to the first one it revealed.
      keepFocus(document.activeElement === all ? steps[first] : steps[shown - 1]);
      next.disabled = true;
      all.disabled = true;
    }
  }

  steps.forEach(function (step, i) { step.hidden = i > 0; });
  controls.hidden = false;
  say();
  // The new step appears above the button: scroll by what it added, so the button stays
  // where the reader's pointer is and the new step shows just above it (scrolling the step
  // into view instead pushed the button below the fold after every click).
  next.addEventListener("click", function () {
    var before = next.getBoundingClientRect().top;
    reveal(shown + 1);
    window.scrollBy(0, next.getBoundingClientRect().top - before);
  });
  all.addEventListener("click", function () { reveal(steps.length); });

  // While a worker works the steps out: ask (the server holds each answer a while) until
  // they are ready, then reload so the server draws them; 202 and 429 say when to ask again.
  // Not when the reader is already going elsewhere: a reload then would cancel their
  // navigation (a link followed, a form sent) and keep them here.
  function waitForSteps(url) {
    var leaving = false;
    window.addEventListener("beforeunload", function () { leaving = true; });
    window.addEventListener("pageshow", function () { leaving = false; });
    function again(seconds) { setTimeout(ask, 1000 * Math.min(Math.max(seconds || 2, 1), 30)); }
    function ask() {
      if (leaving) { return; }
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (answer) {
          if (answer.status === 200) { if (!leaving) { window.location.reload(); } return; }
          if (answer.status === 404) { return; }
          again(parseInt(answer.headers.get("Retry-After"), 10));
        }, function () { again(5); });
    }
    ask();
  }
}());
