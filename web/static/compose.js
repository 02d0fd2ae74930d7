// A compose job's page, live: while the job runs, the page's own HTML is read again every
// two seconds and its live part (progress, counters, the puzzles found) put in place, so the
// page says everything in its language as the server renders it. Without JavaScript the page
// refreshes itself instead (a <noscript> refresh).
"use strict";
(function () {
  const job = document.getElementById("job");
  if (!job || job.dataset.done === "true") return;
  const EVERY = 2000;
  async function look() {
    try {
      const answer = await fetch(window.location.href, { headers: { Accept: "text/html" } });
      if (answer.ok) {
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.getElementById("live");
        const next = page.getElementById("job");
        const live = document.getElementById("live");
        if (fresh && live && next) {
          live.replaceWith(fresh);
          document.title = page.title;
          const state = page.getElementById("state");
          const shown = document.getElementById("state");
          if (state && shown) shown.replaceWith(state);
          job.dataset.state = next.dataset.state;
          job.dataset.done = next.dataset.done;
          if (next.dataset.done === "true") return;
        }
      }
    } catch (error) {
      // The server is away for a moment: look again at the next turn.
    }
    window.setTimeout(look, EVERY);
  }
  window.setTimeout(look, EVERY);
})();
