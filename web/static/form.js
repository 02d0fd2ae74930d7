// The form's submit button says what the chosen mode does ("Solve", "Find all solutions",
// "Count"); the server already draws the right label for the mode it checked.
(function () {
  "use strict";
  var button = document.getElementById("submit");
  var radios = document.querySelectorAll("#puzzle-form input[name=mode]");
  if (!button) { return; }
  function follow() {
    for (var i = 0; i < radios.length; i++) {
      if (radios[i].checked) { button.textContent = radios[i].dataset.button; }
    }
  }
  for (var i = 0; i < radios.length; i++) { radios[i].addEventListener("change", follow); }
  follow();
  // Back to this page, the browser puts the last checked mode back after this script ran
  // (it fires no change event for that); pageshow comes after the restore, and on every
  // return from the back/forward cache.
  window.addEventListener("pageshow", follow);
}());
