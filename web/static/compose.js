// A compose job's page, live: while the job runs, the page asks the job's status with a long
// poll (?wait=2: answered as soon as the job ends, else after two seconds), then reads its own
// HTML again and puts its live part (progress, counters, the puzzles found) in place, so the
// page says everything in its language as the server renders it, and a job that ends in a
// tenth of a second shows it has ended at once. Without JavaScript the page refreshes itself
// instead (a <noscript> refresh).
"use strict";
(function () {
  const job = document.getElementById("job");
  if (!job || job.dataset.done === "true") return;
  const EVERY = 2000;

  async function redraw() {
    const answer = await fetch(window.location.href, { headers: { Accept: "text/html" } });
    if (!answer.ok) return false;
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.getElementById("live");
    const next = page.getElementById("job");
    const live = document.getElementById("live");
    if (!fresh || !live || !next) return false;
    live.replaceWith(fresh);
    document.title = page.title;
    const state = page.getElementById("state");
    const shown = document.getElementById("state");
    if (state && shown) shown.replaceWith(state);
    const ended = next.dataset.done === "true";
    const actions = page.querySelector(".actions");
    const mine = document.querySelector(".actions");
    // Once ended: no Cancel, and Delete for its holders (only then: a button keeps its focus).
    if (ended && actions && mine) mine.replaceWith(actions);
    job.dataset.state = next.dataset.state;
    job.dataset.done = next.dataset.done;
    return ended;
  }

  async function look() {
    let pause = EVERY;
    try {
      const asked = Date.now();
      const status = await fetch(job.dataset.api + "?wait=2", {
        headers: { Accept: "application/json" },
      });
      if (status.ok) {
        if (await redraw()) return;
        // A server with no wait slot free answers at once: wait out Retry-After here.
        const wait = parseInt(status.headers.get("Retry-After"), 10) || 1;
        pause = Math.max(Math.min(Math.max(wait, 1), 5) * 1000 - (Date.now() - asked), 0);
        if (Date.now() - asked >= 1000) pause = 0; // it was held: ask again at once
      }
    } catch (error) {
      // The server is away for a moment: look again at the next turn.
    }
    window.setTimeout(look, pause);
  }
  look();
})();
