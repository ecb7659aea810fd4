/* The play page: poll the API's state every second, draw the table, offer the legal moves, submit
 * one (session auth + CSRF), show the verdict, and count down an open window. */
(function () {
  "use strict";
  const K = window.Kifu;
  const page = JSON.parse(document.getElementById("kifu-page").textContent);
  const root = document.getElementById("play");
  const board = document.getElementById("board");
  const movesBox = document.getElementById("moves");
  const message = document.getElementById("message");
  const countdown = document.getElementById("countdown");
  const POLL_MS = 1000;
  let lastKey = null;
  let loggedSeq = -1;
  let skewMs = 0; // server clock minus ours, from the Date header
  let deadline = null;
  let busy = false;
  let finished = false;
  let timer = null;

  function say(kind, ...content) {
    message.hidden = false;
    message.className = "message " + kind;
    message.replaceChildren(...content);
  }

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  async function submit(move) {
    if (busy) return null;
    busy = true;
    root.classList.add("busy");
    say("info", K.t("sending"));
    try {
      const answer = await K.request(`/api/games/${page.game}/moves?wait=5`, {
        method: "POST",
        body: { move, idempotency_key: newKey() },
      });
      if (answer.status === 200) say("ok", K.t("accepted"));
      else if (answer.status === 202) say("info", K.t("pending"));
      else {
        const body = answer.body || {};
        const title = answer.status === 422 ? K.t("rejected") : K.t("error");
        say("error", K.el("strong", { text: title + ": " }), K.el("code", { class: "code", text: body.code || String(answer.status) }), " ", body.message || "");
      }
      return answer;
    } catch (error) {
      say("error", K.t("network_error"));
      return null;
    } finally {
      busy = false;
      root.classList.remove("busy");
      refresh();
    }
  }

  function moveButton(move) {
    const parts = [K.el("strong", { text: (K.t("actions")[move.type]) || move.type.replace(/_/g, " ") })];
    for (const [name, value] of Object.entries(move)) {
      if (name === "type") continue;
      const values = Array.isArray(value) ? value : [value];
      if (values.length && values.every((v) => K.isCard(v) || K.isTile(v))) parts.push(" ", K.cardRow(values));
      else parts.push(" ", K.el("span", { class: "param", text: name.replace(/_/g, " ") + ": " + JSON.stringify(value) }));
    }
    return K.el("button", { type: "button", class: "move", "data-move": JSON.stringify(move), onclick: () => submit(move) }, parts);
  }

  function drawMoves(state) {
    const moves = state.legal_moves || [];
    if (!moves.length) {
      movesBox.replaceChildren(K.el("p", { class: "muted", text: state.status === "finished" ? K.t("game_over") : K.t("no_moves") }));
      return new Set();
    }
    // Nine Card's moves are its hand's cards: click a card on the table.
    const cardMoves = page.engine === "nine-card" ? moves.filter((m) => m.type === "commit_card") : [];
    const others = moves.filter((m) => !cardMoves.includes(m));
    movesBox.replaceChildren(...others.map(moveButton));
    if (cardMoves.length) movesBox.prepend(K.el("p", { class: "hint", text: K.t("pick_card") }));
    return new Set(cardMoves.map((m) => m.card));
  }

  function draw(state) {
    const seat = state.seat;
    document.getElementById("who").textContent = seat === null ? K.t("spectating") : K.t("playing_as", { player: K.seatLabel(page.names, seat), seat });
    const status = document.getElementById("turn-status");
    finished = state.status === "finished";
    status.classList.toggle("yours", !finished && seat !== null && state.actors.includes(seat));
    if (finished) status.textContent = K.t("game_over");
    else if (state.status === "open") status.textContent = K.t("waiting_for", { players: "…" });
    else if (seat !== null && state.actors.includes(seat)) status.textContent = K.t("your_turn");
    else status.textContent = K.t("waiting_for", { players: state.actors.map((s) => K.seatLabel(page.names, s)).join(", ") });
    deadline = state.window && state.window.deadline_at ? Date.parse(state.window.deadline_at) : null;
    tick();
    const playable = drawMoves(state);
    board.replaceChildren(K.render(page.engine, state.view, { names: page.names, seat, playable, onMove: submit }));
    const result = document.getElementById("result");
    if (finished) {
      result.hidden = false;
      result.replaceChildren(K.outcomeText(state.outcome, page.names), " ",
        K.el("a", { href: `/games/${page.game}/replay`, id: "replay-link", text: K.t("replay_link") }));
      const resign = document.getElementById("resign");
      if (resign) resign.hidden = true;
    }
    root.dataset.headSeq = String(state.head_seq);
    root.dataset.status = state.status;
    root.dataset.actors = state.actors.join(",");
  }

  function tick() {
    if (deadline === null || finished) {
      countdown.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - (Date.now() + skewMs)) / 1000));
    countdown.hidden = false;
    countdown.textContent = K.t("time_left", { seconds: left });
    countdown.classList.toggle("urgent", left <= 10);
  }

  async function drawLog() {
    const answer = await K.request(`/games/${page.game}/log.json?after=0`);
    if (!answer.ok) return;
    const list = document.getElementById("events");
    list.replaceChildren(...answer.body.events.map((event) => K.eventItem(event, page.names)));
    if (list.lastElementChild) list.lastElementChild.scrollIntoView({ block: "nearest" });
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      const answer = await K.request(`/api/games/${page.game}/state`);
      if (answer.date) skewMs = Date.parse(answer.date) - Date.now();
      if (answer.ok) {
        const state = answer.body;
        const key = [state.head_seq, state.status, state.window && state.window.id, state.legal_moves.length].join("|");
        if (key !== lastKey) {
          lastKey = key;
          draw(state);
          if (state.head_seq !== loggedSeq) {
            loggedSeq = state.head_seq;
            await drawLog();
          }
        }
      } else {
        say("error", K.el("code", { text: (answer.body && answer.body.code) || String(answer.status) }), " ", (answer.body && answer.body.message) || "");
      }
    } catch (error) {
      say("error", K.t("network_error"));
    }
    if (!finished) timer = setTimeout(refresh, POLL_MS);
  }

  const resign = document.getElementById("resign");
  if (resign) {
    resign.addEventListener("click", () => {
      if (window.confirm(K.t("resign_confirm"))) submit({ type: "resign" });
    });
  }
  setInterval(tick, 250);
  window.KifuPlay = { submit, refresh };
  refresh();
})();
