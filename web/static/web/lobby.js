/* The lobby page: follows the account stream (GET /api/me/stream) while the visitor sits at an open
 * table, and opens the game's play page as soon as the table fills. Stream messages are hints: on
 * each one (and when the stream opens, which covers a table that filled before it connected) the
 * page reads its seek (GET /api/lobby/seeks/<id>) and acts on that. Without a table it refreshes
 * the list of open tables every few seconds. */
(function () {
  "use strict";
  const root = document.getElementById("lobby");
  if (!root) return;
  const seekId = root.dataset.seek;

  async function check() {
    const response = await fetch(`/api/lobby/seeks/${seekId}`, { credentials: "same-origin" });
    if (!response.ok) return;
    const seek = await response.json();
    if (seek.game) {
      window.location.assign(`/games/${seek.game}/play`);
    } else if (seek.status !== "open") {
      window.location.reload();
    } else {
      const taken = document.getElementById("own-taken");
      if (taken) taken.textContent = String(seek.taken);
    }
  }

  async function refreshList() {
    const response = await fetch(window.location.pathname, { credentials: "same-origin" });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("seeks");
    const list = document.getElementById("seeks");
    if (fresh && list) list.replaceWith(fresh);
  }

  if (seekId) {
    root.dataset.live = "waiting";
    if (window.EventSource) {
      const source = new EventSource("/api/me/stream");
      source.addEventListener("open", check);
      for (const kind of ["seek_joined", "seek_left", "seek_filled", "seek_cancelled", "seek_expired", "game_started"]) {
        source.addEventListener(kind, check);
      }
    }
    window.setInterval(check, 5000); // a lost notice only delays the move to the game
  } else {
    window.setInterval(refreshList, 5000);
  }
})();
