/* The replay viewer: step through a game; the server replays the record up to event N through the
 * engine and answers the view of the chosen perspective (replay.json?at=N&as=...). A running game
 * (data-live="1") goes only as far as the viewer may see it, and has no verification yet. */
(function () {
  "use strict";
  const K = window.Kifu;
  const root = document.getElementById("replay");
  const gameId = root.dataset.game;
  const engine = root.dataset.engine;
  const slider = document.getElementById("slider");
  const select = document.getElementById("perspective");
  const board = document.getElementById("board");
  const eventsList = document.getElementById("events");
  const message = document.getElementById("message");
  const params = new URLSearchParams(window.location.search);
  let as = params.get("as") || root.dataset.defaultAs || "all";
  const live = root.dataset.live === "1";
  let total = Number(slider.max);
  // A link past the last event opens at the end (and one before the first at the start), not empty.
  let at = Math.min(Math.max(Number.parseInt(params.get("at") || "0", 10) || 0, 0), total);
  let asked = 0; // the number of the latest request; older answers are dropped

  function showError(body, status) {
    message.hidden = false;
    message.textContent = "";
    message.append(K.el("code", { text: (body && body.code) || String(status) }), " ", (body && body.message) || K.t("error"));
  }

  function shareUrl() {
    const url = new URL(window.location.href);
    url.search = "";
    url.searchParams.set("at", String(at));
    url.searchParams.set("as", as);
    return url.toString();
  }

  async function load(target) {
    const number = ++asked;
    const answer = await K.request(`/games/${gameId}/replay.json?at=${target}&as=${encodeURIComponent(as)}`);
    if (number !== asked) return;
    if (!answer.ok) {
      showError(answer.body, answer.status);
      return;
    }
    message.hidden = true;
    const position = answer.body;
    at = position.at;
    total = position.total;
    slider.max = String(total);
    slider.value = String(at);
    if (!select.options.length) {
      for (const option of position.perspectives) select.append(K.el("option", { value: option.value, text: option.label }));
    }
    select.value = position.as;
    const seat = /^\d+$/.test(position.as) ? Number(position.as) : null;
    document.getElementById("position").textContent = at === 0 ? K.t("start") + " (0 / " + total + ")" : K.t("position", { at, total });
    board.replaceChildren(K.render(engine, position.view, { names: position.seats, seat }));
    if (position.outcome) board.append(K.el("p", { class: "message result", id: "outcome" }, K.outcomeText(position.outcome, position.seats)));
    eventsList.replaceChildren(...position.events.map((event) => K.eventItem(event, position.seats)));
    const latest = eventsList.lastElementChild;
    if (latest) {
      latest.classList.add("current");
      K.showInList(eventsList, latest);
    }
    const link = shareUrl();
    document.getElementById("share").href = link;
    window.history.replaceState(null, "", link);
    for (const [id, disabled] of [["first", at === 0], ["prev", at === 0], ["next", at === total], ["last", at === total]]) {
      document.getElementById(id).disabled = disabled;
    }
    root.dataset.at = String(at);
    root.dataset.as = position.as;
    root.dataset.ready = "1";
  }

  function go(target) {
    load(Math.max(0, Math.min(total, target)));
  }

  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(at - 1));
  document.getElementById("next").addEventListener("click", () => go(at + 1));
  document.getElementById("last").addEventListener("click", () => go(total));
  slider.addEventListener("input", () => go(Number(slider.value)));
  select.addEventListener("change", () => {
    as = select.value;
    go(at);
  });
  eventsList.addEventListener("click", (event) => {
    const item = event.target.closest("li[data-seq]");
    if (item) go(Number(item.dataset.seq));
  });
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.target.closest("select, input, textarea")) return;
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: total };
    if (event.key in moves && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });

  async function verify() {
    const box = document.getElementById("verification");
    const answer = await K.request(`/api/games/${gameId}/verification`);
    if (!answer.ok) {
      box.textContent = (answer.body && answer.body.message) || K.t("error");
      return;
    }
    const report = answer.body;
    const mark = (value) => (value === null ? K.t("not_checkable") : value ? K.t("ok") : K.t("failed"));
    box.replaceChildren(
      K.el("p", { class: report.ok ? "ok" : "bad", id: "verified", "data-ok": report.ok ? "true" : "false" },
        report.ok ? "✔ " + K.t("verified") : "✘ " + K.t("verify_failed")),
      K.el("ul", {},
        K.el("li", { text: K.t("chain") + ": " + mark(report.chain_ok) }),
        K.el("li", { text: K.t("chance") + ": " + mark(report.chance_ok) }),
        K.el("li", { text: K.t("seed") + ": " + mark(report.seed_ok) }),
        report.problems.map((problem) => K.el("li", { class: "bad", text: problem }))));
  }

  load(at);
  if (!live) verify();
})();
