/* The table recorder: a keeper records a game played with real cards, line by line.
 *
 * The page reads the keeper's sheet (GET /api/table-games/<id>: every seat's cards, the legal moves,
 * the chance step due with its pack) and offers its lines as buttons; a line can also be typed.
 * Every line goes into a queue kept in localStorage first - with a fresh idempotency key and the
 * line number it was typed for - and the queue is sent in order (POST .../entries). A line whose
 * answer never came (the connection dropped) is sent again with the same key: the server answers
 * the first verdict, so it is stored once. While offline the queue waits and is sent when the
 * browser is back online (the `online` event, and a retry every few seconds). A refused line stops
 * the queue until the keeper discards it.
 */
(function () {
  "use strict";
  const K = window.Kifu;
  const page = JSON.parse(document.getElementById("kifu-page").textContent);
  const root = document.getElementById("recorder");
  const message = document.getElementById("message");
  const result = document.getElementById("result");
  const chanceBox = document.getElementById("chance");
  const choices = document.getElementById("choices");
  const typed = document.getElementById("typed");
  const QUEUE = "kifu-table-queue:" + page.game;
  const SHEET = "kifu-table-sheet:" + page.game;
  const RETRY_MS = 3000;
  const url = `/api/table-games/${page.game}`;
  let sheet = null;
  let sending = false;
  let online = navigator.onLine !== false;
  let picker = null; // the chance form being filled in

  // ---- the queue (localStorage) ----------------------------------------------------------------
  function queue() {
    try { return JSON.parse(localStorage.getItem(QUEUE) || "[]"); } catch (error) { return []; }
  }
  function store(items) { localStorage.setItem(QUEUE, JSON.stringify(items)); }

  function enqueue(entry) {
    const items = queue();
    const seq = (sheet ? sheet.next_seq : 1) + items.length;
    items.push({ key: K.newKey(), entry: { ...entry, seq } });
    store(items);
    picker = null;
    draw();
    flush();
  }

  function discard(key) {
    // The line did not happen: the lines typed after it move up one.
    const items = queue();
    const at = items.findIndex((item) => item.key === key);
    if (at < 0) return;
    items.splice(at, 1);
    message.hidden = true;
    for (const item of items.slice(at)) item.entry = { ...item.entry, seq: item.entry.seq - 1 };
    store(items);
    draw();
    flush();
  }

  async function flush() {
    if (sending) return;
    sending = true;
    try {
      for (;;) {
        const item = queue()[0];
        if (!item || item.refused) break;
        let answer;
        try {
          answer = await K.request(url + "/entries", { method: "POST", body: { entry: item.entry, idempotency_key: item.key } });
        } catch (error) {
          setOnline(false);
          break;
        }
        setOnline(true);
        const rest = queue().filter((other) => other.key !== item.key);
        if (answer.status === 200 || answer.status === 201) {
          store(rest);
          setSheet(answer.body.sheet);
          say("ok", K.t(answer.status === 201 ? "rec_sent" : "rec_again"));
        } else if (answer.status === 429 || answer.status >= 500) {
          say("error", K.t(answer.status === 429 ? "too_fast" : "server_error"));
          break; // tried again later, with the same key
        } else {
          const body = answer.body || {};
          store([{ ...item, refused: { code: body.code || String(answer.status), message: body.message || "" } }, ...rest]);
          say("error", K.el("strong", { text: K.t("rejected") + ": " }), K.el("code", { class: "code", text: body.code || String(answer.status) }),
            " ", body.message || "", " ", K.t("rec_refused"));
          break;
        }
      }
    } finally {
      sending = false;
      draw();
    }
  }

  function setOnline(value) {
    online = value;
    root.dataset.online = value ? "1" : "0";
  }

  function setSheet(value) {
    sheet = value;
    localStorage.setItem(SHEET, JSON.stringify(value));
  }

  function say(kind, ...content) {
    message.hidden = false;
    message.className = "message " + kind;
    message.replaceChildren(...content);
  }

  // ---- drawing ----------------------------------------------------------------------------------
  function name(seat) { return K.seatLabel(page.names, seat); }
  function label(key) { return (K.t("keys") || {})[key] || String(key).replace(/_/g, " "); }

  function describe(entry) {
    const data = entry.data || {};
    const parts = [K.el("span", { class: "seq", text: "#" + entry.seq + " " })];
    if (entry.kind === "move") parts.push(name(entry.seat) + ": ");
    parts.push(K.el("strong", { text: (K.t("actions") || {})[data.type] || String(data.type).replace(/_/g, " ") }));
    for (const [key, value] of Object.entries(data)) {
      if (key === "type") continue;
      const values = Array.isArray(value) ? value.flat() : [value];
      if (values.length && values.every((v) => K.isCard(v) || K.isTile(v))) parts.push(" ", K.cardRow(values, { attrs: () => ({ class: "small" }) }));
      else parts.push(" ", K.el("span", { class: "param", text: label(key) + ": " + JSON.stringify(value) }));
    }
    return parts;
  }

  function draw() {
    const items = queue();
    const waiting = items.length;
    root.dataset.queued = String(waiting);
    const over = sheet && sheet.status === "finished";
    document.getElementById("line").textContent = sheet && !over ? K.t("rec_line", { n: sheet.next_seq + waiting }) : "";
    document.getElementById("connection").textContent = online ? K.t("rec_online") : K.t("rec_offline");
    document.getElementById("queue-count").textContent = waiting ? K.t("rec_queued", { n: waiting }) : "";
    document.getElementById("queue").replaceChildren(...items.map((item) => K.el("li", { class: "queued" + (item.refused ? " refused" : ""), "data-key": item.key },
      describe(item.entry),
      item.refused ? [" ", K.el("code", { class: "code", text: item.refused.code }), " ", K.el("span", { text: item.refused.message }), " ",
        K.el("button", { type: "button", class: "discard", onclick: () => discard(item.key), text: K.t("rec_discard") })] : null)));
    if (!sheet) return;
    result.hidden = !over;
    if (over) result.replaceChildren(K.outcomeText(sheet.outcome, page.names), " ", K.t("rec_finished"));
    drawChance(over || waiting ? null : sheet.chance);
    drawChoices(over, waiting);
    const board = document.getElementById("board");
    board.replaceChildren(K.render(page.engine, sheet.seats[0] && sheet.seats[0].view, { names: page.names, seat: 0 }));
  }

  function moveButton(seat, move, only) {
    // When every move of the seat is the one action with one card (Nine Card's commits), the card
    // alone says it: a row of tappable cards, the action named once above them.
    const entry = { kind: "move", seat, data: move };
    const params = Object.keys(move).filter((key) => key !== "type");
    const cardOnly = only && params.length === 1 && K.isCard(move[params[0]]);
    const label = cardOnly ? [K.card(move[params[0]])] : describe({ ...entry, seq: "" }).slice(2);
    // A card-only button is named by its card ("2 of spades"); the section's heading names the action.
    return K.el("button", { type: "button", class: "move" + (cardOnly ? " card-only" : ""), "data-seat": seat, "data-move": JSON.stringify(move),
      onclick: () => enqueue(entry) }, label);
  }

  function drawChoices(over, waiting) {
    const parts = [];
    if (waiting) parts.push(K.el("p", { class: "hint stale", text: K.t("rec_stale") }));
    if (!over && !sheet.chance) {
      for (const seat of sheet.seats) {
        if (!seat.moves.length) continue;
        const only = new Set(seat.moves.map((m) => m.type)).size === 1;
        const action = only ? " · " + ((K.t("actions") || {})[seat.moves[0].type] || seat.moves[0].type) : "";
        parts.push(K.el("section", { class: "panel seat-moves", "data-seat": seat.index },
          K.el("h2", { text: K.t("rec_moves_of", { name: seat.name }) + action }), K.el("div", { class: "moves" }, seat.moves.map((m) => moveButton(seat.index, m, only)))));
      }
    }
    if (!over && sheet.system.length) {
      const buttons = sheet.system.map((line) => K.el("button", { type: "button", class: "system" + (line.type === "resign" ? " danger" : ""),
        "data-system": line.type, "data-seat": line.seat, onclick: () => enqueue({ kind: "system", data: line }),
        text: line.type === "close_window" ? K.t("rec_close_window") : line.type === "resign" ? K.t("rec_resign", { name: name(line.seat) }) : line.type }));
      parts.push(K.el("section", { class: "panel system-lines" }, K.el("h2", { text: K.t("rec_system") }), K.el("div", { class: "moves" }, buttons)));
    }
    if (!parts.length && !over && !sheet.chance) parts.push(K.el("p", { class: "muted", text: K.t("rec_nothing") }));
    choices.replaceChildren(...parts);
  }

  // ---- the chance form: tap the cards of each zone from the pack ------------------------------------
  function newPicker(form) {
    const zones = [];
    const values = {};
    for (const field of form.fields) {
      if (form.completable.includes(field.name)) continue;
      if (field.shape === "per_seat") field.sizes.forEach((size, seat) => zones.push({ field: field.name, seat, size, cards: [] }));
      else if (field.shape === "cards") zones.push({ field: field.name, seat: null, size: field.size, cards: [] });
      else if (field.shape === "card") zones.push({ field: field.name, seat: null, size: 1, single: true, cards: [] });
      else values[field.name] = field.shape === "seat" ? 0 : "";
    }
    return { step: form.step, seq: sheet.next_seq, zones, values, active: 0 };
  }

  function available(form) {
    const left = {};
    for (const id of form.pool) left[id] = (left[id] || 0) + 1;
    for (const zone of picker.zones) for (const id of zone.cards) left[id] -= 1;
    return left;
  }

  function tapPool(form, id) {
    const zone = picker.zones[picker.active];
    if (!zone || zone.cards.length >= zone.size || !(available(form)[id] > 0)) return;
    zone.cards.push(id);
    if (zone.cards.length >= zone.size) {
      const next = picker.zones.findIndex((other) => other.cards.length < other.size);
      if (next >= 0) picker.active = next;
    }
    drawChance(form);
  }

  function rest(form, zone) {
    const left = available(form);
    for (const id of form.pool) {
      if (zone.cards.length >= zone.size) break;
      if (left[id] > 0) { zone.cards.push(id); left[id] -= 1; }
    }
    drawChance(form);
  }

  function recordChance(form) {
    const data = { type: form.step };
    for (const zone of picker.zones) {
      if (zone.seat === null) data[zone.field] = zone.single ? zone.cards[0] || null : zone.cards.slice();
      else (data[zone.field] = data[zone.field] || [])[zone.seat] = zone.cards.slice();
    }
    for (const [field, value] of Object.entries(picker.values)) {
      if (typeof value === "number") { data[field] = value; continue; }
      try { data[field] = JSON.parse(value); } catch (error) { say("error", K.t("rec_bad_json") + " (" + label(field) + ")"); return; }
    }
    enqueue({ kind: "chance", data });
  }

  function drawChance(form) {
    chanceBox.hidden = !form;
    if (!form) { picker = null; return; }
    if (!picker || picker.step !== form.step || picker.seq !== sheet.next_seq) picker = newPicker(form);
    document.getElementById("chance-title").textContent = K.t("rec_deal") + ": " + label(form.step);
    const parts = [];
    for (const field of form.completable) parts.push(K.el("p", { class: "help completed", text: K.t("rec_completed", { zone: label(field) }) }));
    picker.zones.forEach((zone, index) => {
      const title = label(zone.field) + (zone.seat === null ? "" : " · " + name(zone.seat));
      const cards = zone.cards.map((id, at) => K.card(id, { class: "small picked", role: "button", tabindex: 0, title: K.t("rec_clear"),
        onclick: () => { zone.cards.splice(at, 1); picker.active = index; drawChance(form); } }));
      parts.push(K.el("div", { class: "zone" + (index === picker.active ? " active" : ""), "data-field": zone.field, "data-seat": zone.seat === null ? "" : zone.seat },
        K.el("button", { type: "button", class: "link zone-title", onclick: () => { picker.active = index; drawChance(form); }, text: title + " (" + zone.cards.length + "/" + zone.size + ")" }),
        " ", K.el("span", { class: "cards" }, cards), " ",
        K.el("button", { type: "button", class: "rest", onclick: () => rest(form, zone), text: K.t("rec_rest") })));
    });
    for (const [field, value] of Object.entries(picker.values)) {
      const example = JSON.stringify(form.example[field]);
      if (typeof value === "number") {
        const select = K.el("select", { "data-field": field, onchange: (e) => { picker.values[field] = Number(e.target.value); } },
          page.names.map((n, seat) => K.el("option", { value: seat, selected: seat === value, text: n })));
        parts.push(K.el("label", { class: "value" }, label(field) + " ", select));
      } else {
        const area = K.el("textarea", { "data-field": field, rows: 2, placeholder: example, oninput: (e) => { picker.values[field] = e.target.value; } });
        area.value = value;
        parts.push(K.el("label", { class: "value" }, label(field) + " ", area));
      }
    }
    const zone = picker.zones[picker.active];
    if (zone) {
      const left = available(form);
      const seen = new Set();
      const pool = form.pool.filter((id) => !seen.has(id) && seen.add(id)).map((id) => K.card(id, {
        class: left[id] > 0 ? "playable" : "used", role: "button", tabindex: 0, "aria-disabled": left[id] > 0 ? null : "true",
        onclick: () => tapPool(form, id) }));
      parts.push(K.el("p", { class: "hint", text: K.t("rec_zone", { zone: label(zone.field) + (zone.seat === null ? "" : " · " + name(zone.seat)) }) }),
        K.el("div", { class: "pool" }, pool));
    }
    parts.push(K.el("p", {}, K.el("button", { type: "button", id: "record-chance", onclick: () => recordChance(form), text: K.t("rec_record") })));
    document.getElementById("chance-form").replaceChildren(...parts);
  }

  // ---- typing a line --------------------------------------------------------------------------------
  function drawTyped() {
    document.getElementById("typed-title").textContent = K.t("rec_typed");
    const kind = K.el("select", { id: "typed-kind" }, ["move", "system", "chance"].map((k) => K.el("option", { value: k, text: k })));
    const seat = K.el("select", { id: "typed-seat" }, page.names.map((n, index) => K.el("option", { value: index, text: n })));
    const action = K.el("select", { id: "typed-action" });
    const params = K.el("div", { class: "params" });
    const fillActions = () => {
      const names = kind.value === "move" ? Object.keys(page.actions) : kind.value === "system" ? ["close_window", "resign"] : [];
      action.replaceChildren(...names.map((n) => K.el("option", { value: n, text: (K.t("actions") || {})[n] || n })));
      action.hidden = !names.length;
      fillParams();
    };
    const fillParams = () => {
      const fields = [];
      if (kind.value === "chance") fields.push(K.el("label", {}, K.t("rec_data") + " ", K.el("textarea", { id: "typed-data", rows: 3 })));
      else if (kind.value === "system" && action.value === "close_window") fields.push(K.el("label", {}, "window ", K.el("input", { id: "typed-param-window" })));
      else if (kind.value === "move") {
        const schema = page.actions[action.value] || { properties: {} };
        for (const [param, spec] of Object.entries(schema.properties || {})) {
          if (param === "type" || param === "reason") continue;
          const type = Array.isArray(spec.type) ? spec.type[0] : spec.type;
          const input = type === "boolean" ? K.el("input", { type: "checkbox", id: "typed-param-" + param, "data-type": type })
            : K.el("input", { id: "typed-param-" + param, "data-type": type, type: type === "integer" ? "number" : "text", autocomplete: "off" });
          fields.push(K.el("label", {}, label(param) + " ", input));
        }
      }
      params.replaceChildren(...fields);
    };
    kind.addEventListener("change", fillActions);
    action.addEventListener("change", fillParams);
    typed.replaceChildren(K.el("label", {}, K.t("rec_kind") + " ", kind), K.el("label", {}, K.t("rec_seat") + " ", seat),
      K.el("label", {}, K.t("rec_action") + " ", action), params, K.el("button", { type: "submit", id: "typed-add", text: K.t("rec_add") }));
    fillActions();
    typed.addEventListener("submit", (event) => {
      event.preventDefault();
      if (kind.value === "chance") {
        try { enqueue({ kind: "chance", data: JSON.parse(document.getElementById("typed-data").value) }); } catch (error) { say("error", K.t("rec_bad_json")); }
        return;
      }
      if (kind.value === "system") {
        const data = action.value === "resign" ? { type: "resign", seat: Number(seat.value) } : { type: "close_window", window: document.getElementById("typed-param-window").value };
        enqueue({ kind: "system", data });
        return;
      }
      const data = { type: action.value };
      for (const input of params.querySelectorAll("input")) {
        const param = input.id.slice("typed-param-".length);
        const type = input.dataset.type;
        if (type === "boolean") data[param] = input.checked;
        else if (input.value.trim() === "") continue;
        else if (type === "integer") data[param] = Number(input.value);
        else if (type === "array") data[param] = input.value.split(/[\s,]+/).filter(Boolean);
        else data[param] = input.value.trim();
      }
      enqueue({ kind: "move", seat: Number(seat.value), data });
      for (const input of params.querySelectorAll("input")) if (input.type !== "checkbox") input.value = "";
    });
  }

  // ---- start ----------------------------------------------------------------------------------------
  async function start() {
    drawTyped();
    try { sheet = JSON.parse(localStorage.getItem(SHEET) || "null"); } catch (error) { sheet = null; }
    draw();
    try {
      const answer = await K.request(url);
      if (answer.ok) { setSheet(answer.body); setOnline(true); }
    } catch (error) {
      setOnline(false);
    }
    draw();
    flush();
  }

  window.addEventListener("online", () => { setOnline(true); flush(); });
  window.addEventListener("offline", () => { setOnline(false); draw(); });
  setInterval(() => { if (queue().some((item) => !item.refused)) flush(); }, RETRY_MS);
  window.KifuRecorder = { enqueue, flush, queue };
  start();
})();
