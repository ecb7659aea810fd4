/* Every page: behaviour that the markup cannot carry itself. The Content-Security-Policy allows no
 * inline script (kifu/security.py), so handlers such as the language menu's live here. */
(function () {
  "use strict";
  const languages = document.getElementById("language-select");
  if (languages) languages.addEventListener("change", () => languages.form.submit());

  // A table wider than the screen scrolls inside its own box rather than widening the page.
  function scrollable(table) {
    if (table.parentElement && table.parentElement.classList.contains("table-scroll")) return;
    const box = document.createElement("div");
    box.className = "table-scroll";
    table.replaceWith(box);
    box.append(table);
  }
  function wrapTables(root) {
    for (const table of root.querySelectorAll("table")) scrollable(table);
  }
  document.addEventListener("DOMContentLoaded", () => wrapTables(document));
  window.KifuSite = { wrapTables };
})();
