/* Every page: behaviour that the markup cannot carry itself. The Content-Security-Policy allows no
 * inline script (kifu/security.py), so handlers such as the language menu's live here. */
(function () {
  "use strict";
  const languages = document.getElementById("language-select");
  if (languages) languages.addEventListener("change", () => languages.form.submit());
})();
