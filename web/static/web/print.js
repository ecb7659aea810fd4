/* The print pages (web/templates/web/print/): the Print button. No inline script under the CSP. */
(function () {
  "use strict";
  const button = document.getElementById("print-button");
  if (button) button.addEventListener("click", () => window.print());
})();
