// The form's submit button says what the chosen mode does ("Solve", "Find all solutions",
// "Count"); the server already draws the right label for the mode it checked.
// Ctrl+Enter (Cmd+Enter on a Mac) in the puzzle field submits the form.
(function () {
  "use strict";
  var button = document.getElementById("submit");
  var radios = document.querySelectorAll("#puzzle-form input[name=mode]");
  if (!button) { return; }
  var label = button.querySelector(".with-script") || button;
  var form = document.getElementById("puzzle-form");
  var puzzle = document.getElementById("puzzle");
  if (form && puzzle) {
    puzzle.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.isComposing) {
        event.preventDefault();
        if (form.requestSubmit) { form.requestSubmit(button); } else { button.click(); }
      }
    });
  }
  function follow() {
    for (var i = 0; i < radios.length; i++) {
      if (radios[i].checked) { label.textContent = radios[i].dataset.button; }
    }
  }
  for (var i = 0; i < radios.length; i++) { radios[i].addEventListener("change", follow); }
  follow();
  // Back to this page, the browser puts the last checked mode back after this script ran
  // (it fires no change event for that); pageshow comes after the restore, and on every
  // return from the back/forward cache.
  window.addEventListener("pageshow", follow);
}());
