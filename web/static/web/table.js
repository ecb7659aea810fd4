/* Kifu table drawing, shared by the replay viewer and the play page. No build step, no libraries.
 *
 * Kifu.render(engine, view, options) draws an engine's view (the JSON of engine.view(state, seat))
 * with that game's board: Nine Card's is below, the other games' are in boards.js (registered with
 * Kifu.registerBoard). A game without a board, or a view its board cannot draw (a newer rules
 * version), gets the generic renderer, which lays out the view's keys and draws any string that
 * looks like a card id ("10H", "AS", "JK1") or a domino tile id ("2-5") as a card or a tile, and a
 * null inside a list of cards as a face-down card.
 */
(function () {
  "use strict";

  const STRINGS = JSON.parse((document.getElementById("kifu-strings") || {}).textContent || "{}");
  const CARD_RE = /^(?:10|[2-9AJQK])[SHDC]$|^JK[12]$/;
  const TILE_RE = /^\d{1,2}-\d{1,2}$/;
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  // Keys whose list has one entry per seat, labelled with the seat's name.
  const SEAT_KEYS = new Set(["players", "hands", "hand_sizes", "factions", "scores", "totals", "wins", "penalty_piles"]);
  // Keys whose null means "you may not see this" rather than "nothing here".
  const SECRET_KEYS = new Set(["hand", "hands", "set_aside", "face_down", "pile", "discarded", "dead_pile", "drawn",
    "stock", "draw_pile", "card", "cards", "committed_card", "removed", "necropolis"]);

  function t(key, values) {
    let text = STRINGS[key] !== undefined ? STRINGS[key] : key;
    for (const [name, value] of Object.entries(values || {})) text = text.split("{" + name + "}").join(String(value));
    return text;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const isCard = (value) => typeof value === "string" && CARD_RE.test(value);
  const isTile = (value) => typeof value === "string" && TILE_RE.test(value);

  // ---- cards and tiles ------------------------------------------------------------------------
  // A card's name in the page's language ("2 of spades", "スペードの2"; web/strings.py): what a
  // screen reader says for the drawn "2♠", and the tooltip. The id ("2S") is for the API only.
  function cardName(id) {
    const names = STRINGS.cards || {};
    if (id.startsWith("JK")) return names.joker || id;
    const rank = id.slice(0, -1);
    const suit = id.slice(-1);
    return (names.name || "{rank} of {suit}").split("{rank}").join((names.ranks || {})[rank] || rank)
      .split("{suit}").join((names.suits || {})[suit] || suit);
  }

  // attrs.class adds classes; other attrs are set as given (a playable card: role "button"). A card
  // is an image to assistive technology (role "img"), named by its aria-label, which only an element
  // with a role may carry.
  function card(id, attrs) {
    const extra = { ...(attrs || {}) };
    const more = extra.class ? " " + extra.class : "";
    delete extra.class;
    if (id === null || id === undefined) return back(attrs);
    if (isTile(id)) return tile(id, attrs);
    const name = cardName(id);
    const named = { "data-card": id, role: "img", "aria-label": name, title: name, ...extra };
    if (id.startsWith("JK")) {
      return el("span", { class: "card joker" + more, ...named },
        el("span", { class: "rank", text: "JK" }), el("span", { class: "suit", text: "★" }));
    }
    const rank = id.slice(0, -1);
    const suit = id.slice(-1);
    const red = suit === "H" || suit === "D";
    return el("span", { class: "card" + (red ? " red" : "") + more, ...named },
      el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUITS[suit] || suit }));
  }

  function back(attrs) {
    const extra = { ...(attrs || {}) };
    const more = extra.class ? " " + extra.class : "";
    delete extra.class;
    const hidden = t("hidden_card");
    return el("span", { class: "card back" + more, role: "img", title: hidden, "aria-label": hidden, ...extra });
  }

  // Pip positions on a 3x3 grid (0..8) for 0-9 pips; larger numbers are written as digits.
  const PIPS = { 0: [], 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8],
    7: [0, 2, 3, 4, 5, 6, 8], 8: [0, 1, 2, 3, 5, 6, 7, 8], 9: [0, 1, 2, 3, 4, 5, 6, 7, 8] };
  const SVG = "http://www.w3.org/2000/svg";

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    return node;
  }

  function tileHalf(group, value, x) {
    if (PIPS[value] === undefined) {
      const text = svg("text", { x: x + 15, y: 20, "text-anchor": "middle", "font-size": 14, fill: "#222" });
      text.textContent = String(value);
      group.append(text);
      return;
    }
    for (const spot of PIPS[value]) {
      const cx = x + 7 + (spot % 3) * 8;
      const cy = 7 + Math.floor(spot / 3) * 8;
      group.append(svg("circle", { cx, cy, r: 2.4, fill: "#222" }));
    }
  }

  function tile(id, attrs) {
    const [a, b] = id.split("-").map(Number);
    const extra = { ...(attrs || {}) };
    const more = extra.class ? " " + extra.class : "";
    delete extra.class;
    const node = el("span", { class: "tile" + more, "data-tile": id, title: id, ...extra });
    const drawing = svg("svg", { viewBox: "0 0 60 30", width: 60, height: 30, role: "img", "aria-label": id });
    drawing.append(svg("rect", { x: 0.5, y: 0.5, width: 59, height: 29, rx: 4, fill: "#fffdf5", stroke: "#333" }));
    drawing.append(svg("line", { x1: 30, y1: 3, x2: 30, y2: 27, stroke: "#333" }));
    tileHalf(drawing, a, 0);
    tileHalf(drawing, b, 30);
    node.append(drawing);
    return node;
  }

  function cardRow(ids, options) {
    const row = el("span", { class: "cards" });
    if (!ids.length) row.append(el("span", { class: "muted", text: t("none") }));
    for (const id of ids) row.append(card(id, options && options.attrs ? options.attrs(id) : null));
    return row;
  }

  // Text with the card and tile ids it mentions drawn as small cards (found without relying on
  // spaces: Japanese sentences have none).
  function richText(text, ids) {
    const out = el("span", { class: "rich" });
    const wanted = [...new Set(ids || [])].sort((a, b) => b.length - a.length);
    if (!wanted.length) {
      out.textContent = String(text);
      return out;
    }
    const escaped = wanted.map((id) => id.replace(/[-]/g, "\\-"));
    const pattern = new RegExp("(?<![A-Za-z0-9])(" + escaped.join("|") + ")(?![A-Za-z0-9])");
    String(text).split(pattern).forEach((part, index) => {
      if (index % 2 === 1) out.append(card(part, { class: "small" }));
      else if (part) out.append(document.createTextNode(part));
    });
    return out;
  }

  function seatLabel(names, seat) {
    return names && names[seat] !== undefined ? names[seat] : t("seat", { seat });
  }

  // ---- the generic renderer -------------------------------------------------------------------
  function label(key) {
    const keys = STRINGS.keys || {};
    return keys[key] || String(key).replace(/_/g, " ");
  }

  const cardish = (value) => value === null || isCard(value) || isTile(value);
  const isPair = (value) => Array.isArray(value) && value.length === 2 && value.every((x) => Number.isInteger(x) && x >= 0 && x <= 18);

  const isScalar = (x) => x === null || ["string", "number", "boolean"].includes(typeof x);
  const isSimple = (x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar));
  const isRecordList = (data) => data.length > 1 && data.every((x) => x && typeof x === "object" && !Array.isArray(x) && Object.values(x).every((v) => isSimple(v) || isModerated(v)));

  // A list of records with plain values (plays, tricks, log lines) as a table.
  function recordTable(data, ctx) {
    const keys = [];
    for (const row of data) for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key);
    const head = el("tr", {}, keys.map((key) => el("th", { text: label(key) })));
    const rows = data.map((row) => el("tr", {}, keys.map((key) => {
      if (key === "seat" && Number.isInteger(row[key]) && ctx.names) return el("td", { text: seatLabel(ctx.names, row[key]) });
      return el("td", {}, key in row ? value(key, row[key], ctx) : "");
    })));
    return el("div", { class: "table-scroll" }, el("table", { class: "records" }, el("thead", {}, head), el("tbody", {}, rows)));
  }

  // A contribution a moderator hid arrives as {hidden: true, reason} (games/moderation.py).
  const isModerated = (data) => Boolean(data) && typeof data === "object" && !Array.isArray(data) && data.hidden === true;
  function moderated(data) {
    return el("span", { class: "muted moderated", text: t("hidden_by_moderator", { reason: data.reason || "" }) });
  }

  function value(key, data, ctx) {
    if (isModerated(data)) return moderated(data);
    if (data === null || data === undefined) {
      if (SECRET_KEYS.has(key)) return el("span", { class: "muted hidden-value", title: t("hidden") }, back({ class: "small" }), " ", t("hidden"));
      return el("span", { class: "muted", text: "—" });
    }
    if (typeof data === "boolean") return el("span", { class: "bool", text: data ? t("yes") : t("no") });
    if (typeof data === "number") return el("span", { class: "number", text: String(data) });
    if (typeof data === "string") return cardish(data) ? card(data) : el("span", { text: data });
    if (Array.isArray(data)) {
      if (!data.length) return el("span", { class: "muted", text: t("none") });
      if (data.every(cardish) && data.some((x) => x !== null)) return cardRow(data);
      if (data.every(isPair)) return el("span", { class: "cards" }, data.map((pair) => tile(pair[0] + "-" + pair[1])));
      if (SEAT_KEYS.has(key) && ctx.names && data.length === ctx.names.length) {
        return el("div", { class: "seats" }, data.map((item, seat) =>
          el("div", { class: "seat-panel" + (ctx.seat === seat ? " mine" : ""), "data-seat": seat },
            el("h4", { text: seatLabel(ctx.names, seat) + (ctx.seat === seat ? " (" + t("you") + ")" : "") }),
            value(key, item, { ...ctx, panel: seat }))));
      }
      if (data.every(isScalar)) {
        return el("span", {}, data.map((x, i) => [i ? ", " : "", x === null ? "—" : cardish(x) ? card(x, { class: "small" }) : String(x)]));
      }
      if (isRecordList(data)) return recordTable(data, ctx);
      return el("ol", { class: "items" }, data.map((item) => el("li", {}, value(key, item, ctx))));
    }
    if (!Object.keys(data).length) return el("span", { class: "muted", text: t("none") });
    const list = el("dl", { class: "kv" });
    for (const [name, item] of Object.entries(data)) {
      // Inside a seat's panel its own seat number says nothing new.
      if (name === "seat" && Number.isInteger(item) && ctx.panel === item) continue;
      if (name === "seat" && Number.isInteger(item) && ctx.names) {
        list.append(el("dt", { text: label(name) }), el("dd", { text: seatLabel(ctx.names, item) }));
        continue;
      }
      list.append(el("dt", { text: label(name) }), el("dd", {}, value(name, item, ctx)));
    }
    return list;
  }

  function renderGeneric(view, ctx) {
    const root = el("div", { class: "generic" });
    const scalars = el("dl", { class: "kv summary" });
    const rest = [];
    for (const [key, item] of Object.entries(view || {})) {
      if (item !== null && typeof item === "object") rest.push([key, item]);
      else scalars.append(el("dt", { text: label(key) }), el("dd", {}, value(key, item, ctx)));
    }
    root.append(scalars);
    // The players first, then everything else in the engine's order.
    rest.sort((a, b) => (a[0] === "players" ? -1 : b[0] === "players" ? 1 : 0));
    // Long parts (a whole game's history) start folded.
    for (const [key, item] of rest) {
      const open = key === "players" || JSON.stringify(item).length < 1500;
      root.append(el("details", { class: "part", "data-key": key, open },
        el("summary", {}, el("h3", { text: label(key) + (Array.isArray(item) ? " (" + item.length + ")" : "") })),
        value(key, item, ctx)));
    }
    return root;
  }

  // ---- Nine Card ------------------------------------------------------------------------------
  function renderNineCard(view, ctx) {
    const root = el("div", { class: "nine-card" });
    const round = view.round;
    const row = view.row;
    root.append(el("div", { class: "nc-status" },
      el("span", { text: t("round") + " " + round + " · " + t("turn") + " " + view.turn }),
      el("span", { class: "mode mode-" + String(view.mode).toLowerCase(), "data-mode": view.mode, text: t("mode") + ": " + view.mode })));
    // The viewer's own seat at the bottom, as at a table.
    const order = ctx.seat === 0 ? [1, 0] : [0, 1];
    for (const owner of order) {
      const player = view.players[owner];
      const mine = ctx.seat === owner;
      const section = el("section", { class: "nc-player" + (mine ? " mine" : ""), "data-seat": owner });
      const role = owner === 0 ? t("oya") : t("ko");
      section.append(el("h3", {},
        seatLabel(ctx.names, owner) + (mine ? " (" + t("you") + ")" : "") + " · " + role + " " + (SUITS[player.suit] || player.suit),
        el("span", { class: "wins", text: " · " + t("round_wins") + ": " + player.round_wins })));
      const grid = el("div", { class: "nc-grid" });
      for (let column = 0; column < 3; column++) {
        const cells = el("div", { class: "nc-column" + (column + 1 === round && view.phase !== "over" ? " current" : ""), "data-round": column + 1 });
        for (let slot = 0; slot < 3; slot++) {
          const placed = (player.grid[column] || [])[slot];
          const isNow = column + 1 === round && slot + 1 === row && view.phase === "commit";
          let content = null;
          if (placed) content = card(placed);
          else if (isNow && player.committed) {
            content = player.committed_card ? card(player.committed_card, { class: "committed" }) : back({ class: "committed" });
          }
          cells.append(el("div", { class: "slot" + (isNow ? " now" : "") }, content));
        }
        grid.append(cells);
      }
      section.append(grid);
      const hand = el("div", { class: "nc-hand", "data-seat": owner }, el("span", { class: "label", text: t("hand") + ":" }));
      if (player.hand) {
        for (const id of player.hand) {
          const playable = ctx.playable && ctx.playable.has(id);
          const node = card(id, playable ? { class: "playable", role: "button", tabindex: 0 } : null);
          if (playable) {
            node.addEventListener("click", () => ctx.onMove({ type: "commit_card", card: id }));
            node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ctx.onMove({ type: "commit_card", card: id }); } });
          }
          hand.append(node);
        }
        if (!player.hand.length) hand.append(el("span", { class: "muted", text: t("none") }));
      } else {
        for (let i = 0; i < player.hand_size; i++) hand.append(back());
        if (!player.hand_size) hand.append(el("span", { class: "muted", text: t("none") }));
      }
      section.append(hand);
      if (player.set_aside) section.append(el("div", { class: "nc-aside" }, el("span", { class: "label", text: t("set_aside") + ":" }), cardRow(player.set_aside)));
      root.append(section);
    }
    if (view.rounds && view.rounds.length) {
      const table = el("table", { class: "nc-rounds" },
        el("thead", {}, el("tr", {}, el("th", { text: t("round") }), el("th", { text: t("totals") }), el("th", { text: t("paradigm_shift") }),
          el("th", { text: t("mode") }), el("th", { text: t("winner") }))));
      const body = el("tbody");
      for (const result of view.rounds) {
        const shifts = [0, 1].filter((s) => result.column_ps[s] || result.row_ps[s]).map((s) => seatLabel(ctx.names, s)).join(", ");
        body.append(el("tr", {},
          el("td", { text: String(result.round) }),
          el("td", { text: result.totals[0] + " – " + result.totals[1] }),
          el("td", { text: shifts || "—" }),
          el("td", { text: result.mode }),
          el("td", { class: "winner", text: result.winner === null ? t("drawn_round") : seatLabel(ctx.names, result.winner) })));
      }
      table.append(body);
      root.append(el("div", { class: "table-scroll" }, table));
    }
    return root;
  }

  const RENDERERS = { "nine-card": renderNineCard };

  function registerBoard(engine, renderer) {
    RENDERERS[engine] = renderer;
  }

  // Card or tile id -> the legal moves that name that one card and nothing else: clicking the card
  // on the board plays the move (or, when several moves name it, narrows the list to them).
  function playableCards(engine, moves) {
    const found = new Map();
    for (const move of moves || []) {
      const ids = [];
      for (const [name, item] of Object.entries(move)) {
        if (name === "type") continue;
        for (const x of Array.isArray(item) ? item : [item]) if (isCard(x) || isTile(x)) ids.push(x);
      }
      if (ids.length !== 1) continue;
      if (!found.has(ids[0])) found.set(ids[0], []);
      found.get(ids[0]).push(move);
    }
    return found;
  }

  function render(engine, view, ctx) {
    if (!view) return el("p", { class: "muted", text: t("none") });
    const renderer = RENDERERS[engine] || renderGeneric;
    try {
      const drawn = renderer(view, ctx || {});
      drawn.dataset.board = engine;
      return drawn;
    } catch (error) {
      // A view that does not match the game's renderer (a newer rules version) still shows.
      console.error(error);
      return renderGeneric(view, ctx || {});
    }
  }

  function outcomeText(outcome, names) {
    if (!outcome) return "";
    const best = outcome.ranking[0] || [];
    const head = best.length === 1 ? t("wins", { player: seatLabel(names, best[0]) }) : t("draw");
    const scores = Object.entries(outcome.scores || {}).map(([seat, score]) => seatLabel(names, Number(seat)) + " " + score).join(", ");
    return head + (scores ? " " + t("scores") + ": " + scores + "." : "");
  }

  function eventItem(event, names) {
    return el("li", { "data-seq": event.seq, "data-kind": event.kind, value: event.seq }, richText(event.text, event.cards));
  }

  // Bring an item of a list that scrolls in its own box into that box's view. Unlike scrollIntoView,
  // this never scrolls the page: on a phone the list is below the board, and opening a replay must
  // not jump down to it (issue 19).
  function showInList(list, item) {
    const box = list.getBoundingClientRect();
    const line = item.getBoundingClientRect();
    if (line.bottom > box.bottom) list.scrollTop += line.bottom - box.bottom;
    else if (line.top < box.top) list.scrollTop -= box.top - line.top;
  }

  // ---- talking to the server ------------------------------------------------------------------
  function cookie(name) {
    const match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  // A fresh idempotency key for a move or a table line (the server answers a repeated key's first verdict).
  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  async function request(url, options) {
    const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...(options || {}) };
    if (init.body !== undefined) {
      init.headers = { ...init.headers, "Content-Type": "application/json", "X-CSRFToken": cookie("csrftoken") };
      init.body = JSON.stringify(init.body);
    }
    const response = await fetch(url, init);
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    return { status: response.status, ok: response.ok, body, date: response.headers.get("Date") };
  }

  window.Kifu = { t, el, card, back, tile, cardRow, richText, render, renderGeneric, registerBoard, playableCards, outcomeText,
    eventItem, showInList, request, newKey, cookie, seatLabel, isCard, isTile, isModerated, moderated };
})();
