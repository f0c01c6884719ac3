// An execution's page, while the workflow runs or waits for a second
// operator, reloads itself after the seconds its data-refresh says: a
// script rather than a meta refresh, so the person can stop it (WCAG 2.2.1,
// Timing Adjustable). Stopped, it stays stopped for the tab's session, on
// every execution's page; "Refresh now" still reloads by hand.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var el = document.querySelector("[data-refresh]");
  var button = el && el.querySelector("button[data-refresh-stop]");
  var seconds = el ? parseInt(el.getAttribute("data-refresh"), 10) : 0;
  if (!button || !(seconds > 0)) {
    return;
  }
  var key = "evs-refresh-stopped";
  var stopped = function () {
    button.textContent = "Updates stopped";
    button.disabled = true;
  };
  button.hidden = false;
  if (sessionStorage.getItem(key) === "1") {
    stopped();
    return;
  }
  var timer = setTimeout(function () { location.reload(); }, seconds * 1000);
  button.addEventListener("click", function () {
    clearTimeout(timer);
    sessionStorage.setItem(key, "1");
    stopped();
  });
});
