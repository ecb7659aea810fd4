/* The play page: follow the game's live stream (server-sent events), draw the table, offer the
 * legal moves, submit one (session auth + CSRF), show the verdict, and count down an open window.
 *
 * The stream (GET /api/games/<id>/stream) sends the events and a `head` message after each batch;
 * on a head the page reads the state once (the view is not in the stream) and the new events in
 * words. An EventSource sends the session cookie and resumes with Last-Event-ID by itself. Only
 * when it keeps failing (or the browser has none) does the page fall back to polling every second.
 */
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
  const STREAM_FAILURES = 3; // errors in a row, without a message between, before polling instead
  let lastKey = null;
  let loggedSeq = 0;
  let skewMs = 0; // server clock minus ours, from the Date header
  let deadline = null;
  let busy = false;
  let finished = false;
  let timer = null;
  let source = null; // the EventSource while the page follows the stream
  let polling = false; // the fallback is on
  let failures = 0;
  let again = false; // a head arrived while reading: read once more afterwards
  let shown = null; // the state on the page

  function say(kind, ...content) {
    message.hidden = false;
    message.className = "message " + kind;
    message.replaceChildren(...content);
  }

  // The lead text says who refused: the rules (422), the server about the request (4xx), or nobody yet.
  function refusal(status, body) {
    const lead = status === 422 ? K.t("rejected") : status === 429 ? K.t("too_fast") : status >= 500 ? K.t("server_error") : K.t("error");
    return [K.el("strong", { class: "lead", text: lead + ": " }), K.el("code", { class: "code", text: (body && body.code) || String(status) }),
      " ", K.el("span", { class: "detail", text: (body && body.message) || "" })];
  }

  async function submit(move) {
    if (busy) return null;
    busy = true;
    root.classList.add("busy");
    say("info", K.t("sending"));
    try {
      const answer = await K.request(`/api/games/${page.game}/moves?wait=5`, {
        method: "POST",
        body: { move, idempotency_key: K.newKey() },
      });
      if (answer.status === 200) say("ok", K.t("accepted"));
      else if (answer.status === 202) say("info", K.t("pending"));
      else say("error", ...refusal(answer.status, answer.body));
      return answer;
    } catch (error) {
      say("error", K.t("network_error"));
      return null;
    } finally {
      busy = false;
      root.classList.remove("busy");
      if (polling) refresh(); // on the stream, the head message brings the change
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

  // A card that several moves name (a discard with a declaration): list just those moves.
  function pick(id, moves) {
    movesBox.replaceChildren(K.el("p", { class: "hint" }, K.t("moves_with"), " ", K.card(id, { class: "small" })),
      ...moves.map(moveButton),
      K.el("button", { type: "button", class: "link", id: "all-moves", onclick: () => drawMoves(shown), text: K.t("all_moves") }));
  }

  function drawMoves(state) {
    const moves = state.legal_moves || [];
    if (!moves.length) {
      movesBox.replaceChildren(K.el("p", { class: "muted", text: state.status === "finished" ? K.t("game_over") : K.t("no_moves") }));
      return new Map();
    }
    // Moves that name one card or tile are also played by clicking it on the board. Nine Card's
    // only move is a card of the hand, so its list would just repeat the hand.
    const playable = K.playableCards(page.engine, moves);
    const listed = page.engine === "nine-card" ? moves.filter((m) => m.type !== "commit_card") : moves;
    movesBox.replaceChildren(...listed.map(moveButton));
    if (playable.size) movesBox.prepend(K.el("p", { class: "hint", text: K.t(page.engine === "nine-card" ? "pick_card" : "pick_card_any") }));
    return playable;
  }

  function draw(state) {
    shown = state;
    const seat = state.seat;
    document.getElementById("who").textContent = seat === null ? K.t("spectating") : K.t("playing_as", { player: K.seatLabel(page.names, seat), seat });
    const status = document.getElementById("turn-status");
    finished = state.status === "finished";
    status.classList.toggle("yours", !finished && seat !== null && state.actors.includes(seat));
    if (finished) status.textContent = K.t("game_over");
    else if (state.status === "open") status.textContent = K.t("waiting_for", { players: "…" });
    else if (seat !== null && state.actors.includes(seat)) status.textContent = K.t("your_turn");
    else status.textContent = K.t("waiting_for", { players: state.actors.map((s) => K.seatLabel(page.names, s)).join(", ") });
    // A clock's own window ("clock-N") is shown by the clocks, not as a second countdown.
    const timed = state.window && state.window.deadline_at && !(state.clock && String(state.window.id).startsWith("clock-"));
    deadline = timed ? Date.parse(state.window.deadline_at) : null;
    clock = state.clock || null;
    clockRead = Date.now();
    countdown.dataset.window = (state.window && state.window.id) || "";
    tick();
    const playable = drawMoves(state);
    board.replaceChildren(K.render(page.engine, state.view, { names: page.names, seat, playable, onMove: submit, onPick: pick, actors: state.actors }));
    const result = document.getElementById("result");
    if (finished) {
      result.hidden = false;
      result.replaceChildren(K.outcomeText(state.outcome, page.names), " ",
        K.el("a", { href: `/games/${page.game}/replay`, id: "replay-link", text: K.t("replay_link") }));
      const resign = document.getElementById("resign");
      if (resign) resign.hidden = true;
      const rematch = document.getElementById("rematch-form"); // the lobby's: offer the same players another
      if (rematch) rematch.hidden = false;
    }
    root.dataset.headSeq = String(state.head_seq);
    root.dataset.status = state.status;
    root.dataset.actors = state.actors.join(",");
  }

  // The players' clocks (a time control): each seat's time left as the state was read, running
  // down in the browser for the seats whose time runs (none while an engine window pauses them).
  let clock = null;
  let clockRead = 0;

  function clockText(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    const minutes = Math.floor(seconds / 60);
    return minutes >= 60 ? Math.floor(minutes / 60) + ":" + String(minutes % 60).padStart(2, "0") + ":" + String(seconds % 60).padStart(2, "0")
      : minutes + ":" + String(seconds % 60).padStart(2, "0");
  }

  function tickClocks() {
    const box = document.getElementById("clocks");
    if (!clock || !clock.seats || !clock.seats.length) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const spent = Date.now() - clockRead;
    box.replaceChildren(...clock.seats.map((entry) => {
      const runs = entry.running && !clock.paused && !finished;
      const left = entry.remaining_ms - (runs ? spent : 0);
      return K.el("span", { class: "clock" + (runs ? " running" : "") + (left <= 10000 ? " low" : ""), "data-seat": entry.seat },
        K.seatLabel(page.names, entry.seat) + " " + clockText(left));
    }));
  }

  function tick() {
    tickClocks();
    if (deadline === null || finished) {
      countdown.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - (Date.now() + skewMs)) / 1000));
    countdown.hidden = false;
    countdown.textContent = K.t("time_left", { seconds: left });
    countdown.classList.toggle("urgent", left <= 10);
  }

  // A storytelling game's contribution (log.json marks it): a player may report it, a moderator
  // hide it with a reason or show it again. Plain forms posted to the page's own view
  // (web/moderation_views.py, the API's services), which comes back here with the verdict.
  function moderationForm(seq, action, label, fieldLabel) {
    const fields = [K.el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: K.cookie("csrftoken") }),
      K.el("input", { type: "hidden", name: "back", value: "play" })];
    if (fieldLabel) fields.push(K.el("label", {}, fieldLabel + " ", K.el("input", { name: "reason", required: "", maxlength: "500" })), " ");
    return K.el("form", { method: "post", action: `/games/${page.game}/events/${seq}/${action}`, class: action }, ...fields,
      K.el("button", { type: "submit", text: label }));
  }

  function moderationControls(event) {
    const controls = [];
    const folded = (action, label, fieldLabel) =>
      K.el("details", { class: action }, K.el("summary", { text: label }), moderationForm(event.seq, action, label, fieldLabel));
    if (page.may_report) controls.push(folded("report", K.t("report"), K.t("why")));
    if (page.moderator && event.hidden_reason === null) controls.push(folded("hide", K.t("hide"), K.t("hide_reason")));
    if (page.moderator && event.hidden_reason !== null) controls.push(moderationForm(event.seq, "show", K.t("show_again"), null));
    return K.el("span", { class: "moderate" }, ...controls);
  }

  async function drawLog(upto) {
    if (upto !== undefined && upto <= loggedSeq) return;
    const answer = await K.request(`/games/${page.game}/log.json?after=${loggedSeq}`);
    if (!answer.ok) return;
    const list = document.getElementById("events");
    for (const event of answer.body.events) {
      if (event.seq <= loggedSeq) continue;
      const item = K.eventItem(event, page.names);
      if (event.contribution) {
        item.id = "event-" + event.seq;
        if (event.hidden_reason !== null) item.dataset.hidden = "1";
        if (page.may_report || page.moderator) item.append(" ", moderationControls(event));
      }
      list.append(item);
      loggedSeq = event.seq;
    }
    if (list.lastElementChild) K.showInList(list, list.lastElementChild);
  }

  // Read the state once and redraw if it changed.
  async function load() {
    const answer = await K.request(`/api/games/${page.game}/state`);
    if (answer.date) skewMs = Date.parse(answer.date) - Date.now();
    if (!answer.ok) {
      say("error", ...refusal(answer.status, answer.body));
      return;
    }
    const state = answer.body;
    drawn = [state.head_seq, state.status, state.window ? state.window.id : null].join("|");
    const key = [state.head_seq, state.status, state.window && state.window.id, state.legal_moves.length].join("|");
    if (key !== lastKey) {
      lastKey = key;
      draw(state);
      await drawLog(state.head_seq);
    }
  }

  // What the last read showed (head, status, window): a head message that says the same - the first
  // one, right after the page's own read - needs no second read.
  let drawn = null;

  // Coalesce heads that arrive while a read is running into one more read. (No await between the
  // loop's last check and clearing `reading`, so a head is never dropped.)
  let reading = false;
  async function reload() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        try {
          await load();
        } catch (error) {
          say("error", K.t("network_error"));
        }
      } while (again);
    } finally {
      reading = false;
    }
  }

  // ---- polling: the fallback -------------------------------------------------------------------
  async function refresh() {
    clearTimeout(timer);
    await reload();
    if (!finished && polling) timer = setTimeout(refresh, POLL_MS);
  }

  function poll() {
    polling = true;
    root.dataset.live = "polling";
    refresh();
  }

  // ---- the stream ------------------------------------------------------------------------------
  function follow() {
    if (!window.EventSource) return poll();
    // Resume after what the page has drawn: the events before it come from the log, not the stream.
    source = new EventSource(`/api/games/${page.game}/stream`);
    root.dataset.live = "stream";
    source.addEventListener("open", () => { failures = 0; });
    source.addEventListener("head", (message) => {
      failures = 0;
      const head = JSON.parse(message.data);
      root.dataset.heads = String(Number(root.dataset.heads || 0) + 1);
      root.dataset.streamSeat = String(head.seat); // the stream knows the session's seat
      const same = [head.head_seq, head.status, head.window ? head.window.id : null].join("|") === drawn;
      (same ? Promise.resolve() : reload()).then(() => { if (head.status === "finished") stop(); });
    });
    source.addEventListener("end", (message) => {
      const end = JSON.parse(message.data);
      if (end.reason === "finished") stop();
      // "timeout": the browser reconnects by itself, with Last-Event-ID.
    });
    source.addEventListener("error", () => {
      if (!source) return;
      failures += 1;
      // CLOSED: the server refused the stream (an HTTP error), the browser will not retry.
      if (source.readyState === EventSource.CLOSED || failures >= STREAM_FAILURES) {
        stop();
        if (!finished) poll();
      }
    });
  }

  function stop() {
    if (source) source.close();
    source = null;
  }

  const resign = document.getElementById("resign");
  if (resign) {
    resign.addEventListener("click", () => {
      if (window.confirm(K.t("resign_confirm"))) submit({ type: "resign" });
    });
  }
  setInterval(tick, 250);
  window.KifuPlay = { submit, reload, live: () => (polling ? "polling" : source ? "stream" : "stopped") };
  // The first drawing comes from one read, so the page shows at once even before the stream opens.
  reload().then(() => { if (!finished) follow(); });
})();
