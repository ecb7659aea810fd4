/* Every page: behaviour that the markup cannot carry itself. The Content-Security-Policy allows no
 * inline script (kifu/security.py), so handlers such as the language menu's live here. */
(function () {
  "use strict";
  const languages = document.getElementById("language-select");
  if (languages) languages.addEventListener("change", () => languages.form.submit());

  // A table wider than the screen scrolls inside its own box rather than widening the page; a box
  // that scrolls takes the keyboard focus, so it can be scrolled without a mouse (axe-core's
  // scrollable-region-focusable: on a phone the ladder's challenges table has no link to tab to).
  function keyboardScroll(box) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
  function scrollable(table) {
    if (table.parentElement && table.parentElement.classList.contains("table-scroll")) {
      keyboardScroll(table.parentElement);
      return;
    }
    const box = document.createElement("div");
    box.className = "table-scroll";
    table.replaceWith(box);
    box.append(table);
    keyboardScroll(box);
  }
  function wrapTables(root) {
    for (const table of root.querySelectorAll("table")) scrollable(table);
  }
  document.addEventListener("DOMContentLoaded", () => wrapTables(document));
  window.addEventListener("resize", () => document.querySelectorAll(".table-scroll").forEach(keyboardScroll));
  window.KifuSite = { wrapTables };
})();
