// The copy button of a secret shown once. The page works without this
// file: the secret can be selected and copied by hand; the button stays
// hidden unless the clipboard can be used.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard || !window.isSecureContext) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () { button.textContent = "Copied"; },
        function () { button.textContent = "Copy failed: select the text"; }
      );
    });
  });
});
