/* The boards of the card, tile and story games (Nine Card's is in table.js), drawn from each
 * engine's view JSON with HTML, CSS and small SVG tiles: nothing is downloaded at run time.
 *
 * Every board draws the view's main parts as a table (seats with hands, piles and scores, the
 * middle of the table, whose turn), and then hands the keys it did not draw to the generic
 * renderer under "More", so nothing the view contains is lost. A card in the viewer's hand is
 * clickable when a legal move names it (ctx.playable, built by Kifu.playableCards).
 */
(function () {
  "use strict";
  const K = window.Kifu;
  const { el, t, card, back, tile } = K;
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  // ---- shared pieces ----------------------------------------------------------------------------
  // A translated word for a value of the view ("phase_play"), else the value with spaces.
  function word(prefix, value) {
    const key = prefix + value;
    const text = t(key);
    return text === key ? String(value).replace(/_/g, " ") : text;
  }
  const name = (ctx, seat) => K.seatLabel(ctx.names, seat);
  const names = (ctx, seats) => (seats || []).map((seat) => name(ctx, seat)).join(", ") || "—";

  function stat(key, value) {
    return el("span", { class: "stat", "data-key": key }, el("span", { class: "stat-label", text: t("b_" + key) + ": " }),
      value instanceof Node ? value : el("strong", { text: value === null || value === undefined ? "—" : String(value) }));
  }

  function badge(key, extra) {
    return el("span", { class: "badge badge-" + key, text: t("b_" + key) + (extra ? " " + extra : "") });
  }

  // A card the viewer may play: click (or Enter) plays it, or narrows the moves when several name it.
  function playableCard(id, ctx, attrs) {
    const moves = ctx.playable && ctx.playable.get ? ctx.playable.get(id) : null;
    if (!moves || !ctx.onMove) return card(id, attrs);
    const more = attrs && attrs.class ? " " + attrs.class : "";
    const node = card(id, { ...(attrs || {}), class: "playable" + more, role: "button", tabindex: 0 });
    const act = () => (moves.length === 1 || !ctx.onPick ? ctx.onMove(moves[0]) : ctx.onPick(id, moves));
    node.addEventListener("click", act);
    node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(); } });
    return node;
  }

  // A hand: its cards when the viewer may see them, else as many card backs as it holds.
  function hand(ids, size, ctx) {
    const row = el("div", { class: "hand cards" });
    if (Array.isArray(ids)) {
      for (const id of ids) row.append(id === null ? back() : playableCard(id, ctx));
      if (!ids.length) row.append(el("span", { class: "muted", text: t("none") }));
    } else {
      row.append(backs(size || 0));
    }
    return row;
  }

  // Up to 12 backs, then "+N": a fan, not a wall.
  function backs(count) {
    const row = el("span", { class: "cards backs", "data-count": count });
    for (let i = 0; i < Math.min(count, 12); i++) row.append(back({ class: "small" }));
    if (count > 12) row.append(el("span", { class: "more", text: "+" + (count - 12) }));
    if (!count) row.append(el("span", { class: "muted", text: t("none") }));
    return row;
  }

  // A face-down pile of known size drawn as a stack with its count on it.
  function stack(count, key) {
    return el("span", { class: "stack", "data-key": key, title: t("b_" + key) },
      count ? back() : el("span", { class: "card empty" }), el("span", { class: "stack-count", text: String(count) }));
  }

  function cards(ids, attrs) {
    return K.cardRow((ids || []).map((id) => (id === "S" || id === "Z" ? null : id)), attrs ? { attrs: () => attrs } : null);
  }

  // A seat's panel: its name, "(you)", whose turn, badges, then the parts.
  function panel(ctx, seat, onTurn, badges, ...parts) {
    const mine = ctx.seat === seat;
    return el("section", { class: "seat-board" + (mine ? " mine" : "") + (onTurn ? " on-turn" : ""), "data-seat": seat },
      el("h3", {}, name(ctx, seat) + (mine ? " (" + t("you") + ")" : ""), onTurn ? badge("on_turn") : null, ...(badges || [])),
      ...parts);
  }

  function line(...parts) {
    return el("div", { class: "board-line" }, ...parts);
  }

  function labelled(key, content) {
    return el("div", { class: "labelled", "data-key": key }, el("span", { class: "label", text: t("b_" + key) + ":" }), content);
  }

  // The keys a board did not draw, as the generic renderer shows them.
  function rest(view, used, ctx) {
    const others = {};
    for (const [key, item] of Object.entries(view)) if (!used.includes(key)) others[key] = item;
    if (!Object.keys(others).length) return null;
    return el("details", { class: "part more" }, el("summary", {}, el("h3", { text: t("b_more") })), K.renderGeneric(others, ctx));
  }

  function board(slug, view, ...parts) {
    return el("div", { class: "board-game board-" + slug, "data-phase": view.phase || "" }, ...parts);
  }

  function table(headers, rows) {
    return el("div", { class: "table-scroll" }, el("table", { class: "records" }, el("thead", {}, el("tr", {}, headers.map((h) => el("th", { text: h })))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))))));
  }

  function folded(key, count, content, open) {
    return el("details", { class: "part", "data-key": key, open: open || false },
      el("summary", {}, el("h3", { text: t("b_" + key) + " (" + count + ")" })), content);
  }

  const yesNo = (value) => (value ? t("yes") : t("no"));

  // ---- Satori -------------------------------------------------------------------------------------
  function classMark(value) {
    if (value !== "S" && value !== "Z") return card(value, { class: "small" });
    return el("span", { class: "card back small class-" + value, title: word("b_class_", value) }, el("span", { class: "class-mark", text: value }));
  }

  function satoriPile(ids, ctx) {
    const row = el("span", { class: "cards pile", title: t("b_top_first") });
    ids.forEach((id, index) => {
      const node = id === null ? back() : id === "S" || id === "Z" ? classMark(id) : card(id);
      if (index === 0) node.classList.add("top");
      row.append(node);
    });
    if (!ids.length) row.append(el("span", { class: "muted", text: t("none") }));
    return row;
  }

  function renderSatori(view, ctx) {
    const win = view.window;
    const head = line(stat("phase", word("phase_", view.phase)), stat("plays", view.plays),
      labelled("set_aside", stack(view.set_aside_size, "set_aside")));
    const parts = [head];
    if (win) {
      const played = view.players[view.active] && view.players[view.active].pile[0];
      parts.push(el("div", { class: "window-box", "data-window": win.id },
        el("strong", { text: t("b_katsu_window", { player: name(ctx, view.active) }) + " " }),
        played !== undefined ? classMark(played) : null,
        line(stat("waiting_for", names(ctx, win.waiting_for)), stat("declined", names(ctx, win.declined)),
          stat("claims", names(ctx, win.claims)), stat("seconds", win.seconds))));
    }
    if (view.hand_over) parts.push(el("div", { class: "window-box" }, K.renderGeneric({ hand_over: view.hand_over }, ctx)));
    const seats = el("div", { class: "seat-boards" });
    for (const player of view.players) {
      const badges = [player.eliminated ? badge("eliminated") : null, player.resigned ? badge("resigned") : null];
      seats.append(panel(ctx, player.seat, view.active === player.seat && view.phase === "action", badges,
        labelled("hand", hand(player.hand, player.hand_size, ctx)),
        labelled("pile", el("span", {}, satoriPile(player.pile, ctx), " ", el("span", { class: "muted", text: "(" + player.pile_size + ")" }))),
        line(stat("run", player.run)),
        player.removed.length ? labelled("removed", el("span", { class: "cards" }, player.removed.map((c) => (c === null ? back({ class: "small" }) : classMark(c))))) : null));
    }
    parts.push(seats);
    if (view.katsu_log.length) {
      parts.push(folded("katsu_log", view.katsu_log.length, table(
        [t("b_window"), t("b_player"), t("b_challenger"), t("b_card"), t("b_success")],
        view.katsu_log.map((k) => [k.window, name(ctx, k.active), name(ctx, k.challenger), el("span", {}, classMark(k.card), " ", word("b_class_", k.class)),
          el("span", { class: k.success ? "ok" : "bad", text: yesNo(k.success) })])), true));
    }
    if (view.result) {
      const r = view.result;
      const runs = Array.isArray(r.runs) ? r.runs.map((run, seat) => name(ctx, seat) + " " + (run === null ? "—" : run)).join(", ") : null;
      parts.push(line(stat("result", word("b_reason_", r.reason)), r.declarer !== null && r.declarer !== undefined ? stat("declarer", name(ctx, r.declarer)) : null,
        r.reference !== null && r.reference !== undefined ? stat("reference", name(ctx, r.reference)) : null, runs ? stat("runs", runs) : null));
    }
    return board("satori", view, ...parts, rest(view, ["phase", "active", "plays", "set_aside_size", "window", "hand_over", "players", "katsu_log", "result"], ctx));
  }

  // ---- Turn Thief -----------------------------------------------------------------------------------
  const declared = (entry) => el("span", { class: "declared" }, card(entry.declared_rank + entry.declared_suit, { class: "small declared-card" }));

  function thiefEntry(entry, ctx) {
    const calls = Object.entries(entry.calls || {}).map(([seat, call]) => name(ctx, Number(seat)) + ": " + word("b_call_", call)).join(", ");
    let result = word("b_call_", entry.result);
    if (entry.result === "doubt" && entry.honest !== null) result += " · " + (entry.honest ? t("b_honest") : t("b_bluff"));
    if (entry.winner !== null && entry.winner !== undefined) result += " · " + t("b_winner") + ": " + name(ctx, entry.winner);
    if (entry.taker !== null && entry.taker !== undefined) result += " · " + t("b_taker") + ": " + name(ctx, entry.taker);
    return [String(entry.number), name(ctx, entry.discarder), declared(entry), entry.card ? card(entry.card, { class: "small" }) : back({ class: "small" }), calls || "—", result];
  }

  function renderTurnThief(view, ctx) {
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("discards", view.discards + " / " + view.max_discards),
      labelled("dead_pile", stack(view.dead_pile_size, "dead_pile")))];
    const reaction = view.reaction;
    if (reaction) {
      parts.push(el("div", { class: "window-box", "data-window": reaction.window },
        el("strong", { text: t("b_reaction", { player: name(ctx, view.active) }) }),
        line(stat("waiting_for", names(ctx, reaction.waiting)), stat("responded", names(ctx, reaction.responded))),
        reaction.calls && Object.keys(reaction.calls).length ? K.renderGeneric({ calls: reaction.calls }, ctx) : null));
    }
    const seats = el("div", { class: "seat-boards" });
    view.factions.forEach((faction, seat) => {
      const shown = view.hands ? view.hands[seat] : null;
      seats.append(panel(ctx, seat, view.active === seat, [el("span", { class: "faction suit-" + faction, title: t("b_faction"), text: SUITS[faction] || faction })],
        labelled("hand", hand(shown, view.hand_sizes[seat], ctx)),
        view.hand_sums ? line(stat("hand_sum", view.hand_sums[seat])) : null));
    });
    parts.push(seats);
    parts.push(labelled("public_cards", cards(view.public_cards)));
    if (view.my_dead_cards) parts.push(labelled("my_dead_cards", cards(view.my_dead_cards)));
    if (view.dead_pile) parts.push(labelled("dead_pile", cards(view.dead_pile)));
    const headers = ["#", t("b_discarder"), t("b_declared"), t("b_card"), t("b_calls"), t("b_result")];
    if (view.last) parts.push(labelled("last", table(headers, [thiefEntry(view.last, ctx)])));
    if (view.history.length) parts.push(folded("history", view.history.length, table(headers, view.history.slice().reverse().map((e) => thiefEntry(e, ctx))), view.history.length <= 12));
    return board("turn-thief", view, ...parts, rest(view, ["phase", "active", "factions", "hand_sizes", "hands", "hand_sums", "dead_pile_size", "dead_pile", "my_dead_cards", "public_cards", "discards", "max_discards", "reaction", "last", "history"], ctx));
  }

  // ---- 1234 -------------------------------------------------------------------------------------------
  function render1234(view, ctx) {
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("game", view.game), stat("dealer", view.dealer === null ? null : name(ctx, view.dealer)),
      stat("target", view.target), stat("play_range", view.play_range ? view.play_range.join("–") : null),
      labelled("start_card", view.start_card ? card(view.start_card) : el("span", { text: "—" })), labelled("stock", stack(view.stock_count, "stock")))];
    const seats = el("div", { class: "seat-boards" });
    for (const player of view.players) {
      const badges = [player.dropped_out ? badge("dropped_out") : null, player.resigned ? badge("resigned") : null];
      seats.append(panel(ctx, player.seat, view.to_move === player.seat, badges,
        labelled("hand", hand(player.hand, player.hand_size, ctx)),
        player.face_down_size || player.face_down ? labelled("face_down", player.face_down ? cards(player.face_down) : backs(player.face_down_size)) : null,
        line(stat("total", player.total))));
    }
    parts.push(seats);
    const plays = view.table.map((play) => el("li", { "data-seat": play.seat, "data-type": play.type },
      el("span", { class: "who", text: name(ctx, play.seat) + " · " + ((K.t("actions")[play.type]) || play.type) + " " }), cards(play.cards)));
    parts.push(el("section", { class: "table-area" }, el("h3", { text: t("b_table") + " (" + view.table.length + ")" }),
      plays.length ? el("ol", { class: "plays" }, plays.reverse()) : el("p", { class: "muted", text: t("none") })));
    const result = (r) => [String(r.game), r.dealer === null ? "—" : name(ctx, r.dealer), word("b_reason_", r.reason), names(ctx, r.winners),
      (r.deltas || []).map((d, s) => name(ctx, s) + " " + (d > 0 ? "+" : "") + d).join(", ")];
    if (view.results.length) parts.push(labelled("results", table([t("b_game"), t("b_dealer"), t("b_reason"), t("b_winners"), t("b_deltas")], view.results.map(result))));
    return board("1234", view, ...parts, rest(view, ["phase", "game", "dealer", "to_move", "target", "play_range", "start_card", "stock_count", "players", "table", "results", "result"], ctx));
  }

  // ---- Necropolis ---------------------------------------------------------------------------------
  function renderNecropolis(view, ctx) {
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("step", view.step ? word("step_", view.step) : null), stat("game", view.game + " / " + view.match_games),
      stat("turn", view.turn + " / " + view.turn_limit), labelled("necropolis", stack(view.necropolis_count, "necropolis")),
      view.end_proposed ? badge("end_proposed") : null)];
    const seats = el("div", { class: "seat-boards" });
    view.players.forEach((player, seat) => {
      const grave = el("div", { class: "grave tiles" }, player.grave.map((pair, index) =>
        tile(pair[0] + "-" + pair[1], { class: index === player.start_index ? "start" : "" })));
      if (!player.grave.length) grave.append(el("span", { class: "muted", text: t("none") }));
      const mastaba = player.mastaba
        ? el("div", { class: "mastaba tiles" }, player.mastaba.length ? player.mastaba.map((id) => playableCard(id, ctx)) : el("span", { class: "muted", text: t("none") }))
        : el("div", { class: "mastaba tiles" }, Array.from({ length: player.mastaba_count }, () => tileBack()), player.mastaba_count ? null : el("span", { class: "muted", text: t("none") }));
      let drawn = null;
      if (player.drawn) drawn = labelled("drawn", tile(player.drawn, { class: "drawn" }));
      else if (player.holding_drawn) drawn = labelled("drawn", tileBack());
      const discarded = player.discarded
        ? el("div", { class: "tiles" }, player.discarded.map((id) => tile(id, { class: "small" })), player.discarded.length ? null : el("span", { class: "muted", text: t("none") }))
        : el("span", { text: String(player.discarded_count) });
      seats.append(panel(ctx, seat, view.active === seat, [],
        labelled("grave", grave), labelled("mastaba", mastaba), drawn, labelled("discarded", discarded),
        line(stat("start_tile", player.start_tile), player.score !== undefined ? stat("score", player.score) : null)));
    });
    parts.push(seats);
    if (view.necropolis) parts.push(labelled("necropolis", el("div", { class: "tiles" }, view.necropolis.map((id) => tile(id, { class: "small" })))));
    if (view.games.length) {
      parts.push(labelled("games", table([t("b_game"), t("b_reason"), t("b_scores")],
        view.games.map((g, i) => [String(i + 1), word("b_reason_", g.reason), g.scores.map((s, seat) => name(ctx, seat) + " " + s).join(", ")]))));
    }
    return board("necropolis", view, ...parts, rest(view, ["phase", "step", "game", "match_games", "turn", "turn_limit", "necropolis_count", "end_proposed", "players", "necropolis", "games", "active"], ctx));
  }

  function tileBack() {
    return el("span", { class: "tile back", title: t("hidden") }, el("span", { class: "tile-back" }));
  }

  // ---- Mekuri Hinmin -----------------------------------------------------------------------------
  function renderMekuri(view, ctx) {
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("game", view.game + " / " + view.match_games),
      stat("situation", view.situation ? word("situation_", view.situation) : null),
      labelled("draw_pile", stack(view.draw_pile_size, "draw_pile")), stat("reshuffles", view.reshuffles),
      view.designated_suit ? stat("designated_suit", SUITS[view.designated_suit] || view.designated_suit) : null,
      view.pending_draw ? stat("pending_draw", view.pending_draw) : null)];
    const middle = el("section", { class: "table-area" },
      labelled("top", el("span", {}, cards(view.top), view.top_kind ? " " + word("b_kind_", view.top_kind) : "",
        view.top_owner !== null && view.top_owner !== undefined ? " · " + name(ctx, view.top_owner) : "")),
      labelled("field", cards(view.field)),
      labelled("discard", view.discard ? cards(view.discard) : stack(view.discard_size, "discard")));
    parts.push(middle);
    if (view.going_out) parts.push(el("div", { class: "window-box" }, el("strong", { text: t("b_going_out", { player: name(ctx, view.going_out.finisher) }) + " " }), cards(view.going_out.cards)));
    if (view.tie_offer !== null && view.tie_offer !== undefined) parts.push(el("div", { class: "window-box", text: t("b_tie_offer", { player: name(ctx, view.tie_offer) }) }));
    const seats = el("div", { class: "seat-boards" });
    view.players.forEach((player, seat) => {
      seats.append(panel(ctx, seat, view.to_move === seat, [player.reach ? badge("reach") : null],
        labelled("hand", hand(player.hand, player.hand_size, ctx)),
        player.just_drawn ? labelled("just_drawn", cards(player.just_drawn)) : null,
        line(stat("wins", player.wins), stat("losses", player.losses), stat("ties", player.ties))));
    });
    parts.push(seats);
    if (view.results.length) {
      parts.push(labelled("results", table([t("b_game"), t("b_winner"), t("b_reason")],
        view.results.map((r) => [String(r.game), r.winner === null ? t("drawn_round") : name(ctx, r.winner), word("b_reason_", r.reason)]))));
    }
    return board("mekuri-hinmin", view, ...parts, rest(view, ["phase", "game", "match_games", "situation", "draw_pile_size", "reshuffles", "designated_suit", "pending_draw", "top", "top_kind", "top_owner", "field", "discard", "discard_size", "going_out", "tie_offer", "players", "results", "to_move"], ctx));
  }

  // ---- Twenty-Two -------------------------------------------------------------------------------------
  function trickRow(trick, ctx) {
    return el("div", { class: "trick" }, trick.plays.map((play) =>
      el("span", { class: "trick-play" + (play.beat ? " beat" : " under") + (trick.winner === play.seat ? " won" : ""), "data-seat": play.seat },
        el("span", { class: "who", text: name(ctx, play.seat) }), cards(play.cards))),
    trick.winner !== undefined && trick.winner !== null ? el("span", { class: "trick-winner", text: "→ " + name(ctx, trick.winner) }) : null);
  }

  function renderTwentyTwo(view, ctx) {
    const stakes = view.pot !== undefined;
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("deal", view.deal), stat("dealer", view.dealer === null ? null : name(ctx, view.dealer)),
      stat("hand_size", view.hand_size), labelled("stock", stack(view.stock_count, "stock")), stakes ? stat("pot", view.pot) : null)];
    const current = view.trick;
    parts.push(el("section", { class: "table-area" }, el("h3", { text: t("b_trick") }),
      current.plays.length ? trickRow({ plays: current.plays, winner: null }, ctx) : el("p", { class: "muted", text: t("none") }),
      current.bar.length ? labelled("bar", el("span", {}, cards(current.bar), current.bar_setter !== null ? " · " + name(ctx, current.bar_setter) : "")) : null));
    const seats = el("div", { class: "seat-boards" });
    for (const player of view.players) {
      const badges = [player.status !== "active" ? el("span", { class: "badge", text: word("b_status_", player.status) }) : null];
      seats.append(panel(ctx, player.seat, (view.to_act || []).includes(player.seat), badges,
        labelled("hand", hand(player.hand, player.hand_count, ctx)),
        labelled("penalty_pile", cards(player.penalty_pile)),
        player.discards && player.discards.length ? labelled("exchange_discards", cards(player.discards)) : null,
        line(stat("penalty", player.total), stat("exchanged", player.exchanged),
          stakes ? stat("balance", player.balance) : null, stakes ? stat("buy_backs", player.buy_backs) : null)));
    }
    parts.push(seats);
    if (stakes) {
      const ledger = view.ledger.map((e) => [word("b_ledger_", e.kind), e.seat === null ? "—" : name(ctx, e.seat), String(e.amount), String(e.deal)]);
      parts.push(folded("ledger", view.ledger.length, table([t("b_entry"), t("b_player"), t("b_chips"), t("b_deal")], ledger), true));
      if (view.buy_back && (view.buy_back.eligible.length || view.buy_back.undecided.length)) {
        parts.push(line(stat("buy_back_eligible", names(ctx, view.buy_back.eligible)), stat("buy_back_undecided", names(ctx, view.buy_back.undecided))));
      }
    }
    if (view.tricks.length) parts.push(folded("tricks", view.tricks.length, el("div", { class: "tricks" }, view.tricks.map((tr) => trickRow(tr, ctx))), true));
    if (view.results.length) {
      parts.push(folded("results", view.results.length, table([t("b_deal"), t("b_final_cards"), t("b_losers"), t("b_eliminated")],
        view.results.map((r) => [String(r.deal),
          el("span", {}, r.final_cards.map(([seat, id]) => el("span", { class: "final-card" }, name(ctx, seat) + " ", id ? card(id, { class: "small" }) : back({ class: "small" }), " "))),
          names(ctx, r.losers), names(ctx, r.eliminated)])), false));
    }
    if (view.winners.length) parts.push(line(stat("winners", names(ctx, view.winners))));
    return board("twenty-two", view, ...parts, rest(view, ["phase", "deal", "dealer", "hand_size", "stock_count", "pot", "trick", "players", "ledger", "buy_back", "tricks", "results", "winners", "to_act"], ctx));
  }

  // ---- the story games ------------------------------------------------------------------------------
  function story(lines, ctx, key) {
    const list = el("ol", { class: "story", "data-key": key });
    for (const entry of lines) {
      const who = el("span", { class: "who" }, el("bdi", { text: name(ctx, entry.seat) }), (entry.role ? " · " + word("role_", entry.role) : "") + (entry.form ? " · " + word("form_", entry.form) : ""));
      let words;
      if (K.isModerated(entry.text)) words = K.moderated(entry.text);
      else if (entry.text === undefined || entry.text === null) words = el("span", { class: "story-text muted", text: t("hidden") });
      else words = el("span", { class: "story-text", text: entry.text });
      list.append(el("li", { "data-seq": entry.seq, "data-seat": entry.seat }, who, words));
    }
    if (!lines.length) list.append(el("li", { class: "muted", text: t("b_no_story") }));
    return list;
  }

  function renderKyoko(view, ctx) {
    const roles = el("div", { class: "seat-boards" });
    for (const [role, seat] of Object.entries(view.roles)) {
      roles.append(el("section", { class: "seat-board role" + (seat !== null && seat === view.turn ? " on-turn" : ""), "data-role": role },
        el("h3", { text: word("role_", role) }), el("p", { text: seat === null ? "—" : name(ctx, seat) }),
        view.labels && K.isModerated(view.labels[role]) ? el("p", {}, K.moderated(view.labels[role]))
          : view.labels && view.labels[role] ? el("p", { class: "muted", text: view.labels[role] }) : null));
    }
    const entries = view.log.map((e) => ({ ...e, text: e.text === undefined ? undefined : e.text, form: e.form || (e.move !== "open_tale" ? e.move : null) }));
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("tales", view.tales), stat("contributions", view.contributions),
      view.turn !== null ? stat("to_move", name(ctx, view.turn)) : null, view.you ? stat("you_play", word("role_", view.you)) : null,
      view.result ? stat("result", word("b_reason_", view.result)) : null),
    roles, el("section", { class: "table-area" }, el("h3", { text: t("b_story") }), story(entries, ctx, "log"))];
    return board("kazekami-kyoko", view, ...parts, rest(view, ["phase", "roles", "labels", "turn", "tales", "contributions", "you", "result", "log"], ctx));
  }

  function renderBelievers(view, ctx) {
    const seats = el("div", { class: "seat-boards" });
    for (const player of view.players) {
      const badges = [player.active ? null : badge("left"), player.agreed ? badge("agreed") : null, player.committed ? badge("committed") : null];
      seats.append(panel(ctx, player.seat, view.speaker === player.seat, badges,
        player.choice ? line(stat("choice", word("choice_", player.choice))) : null));
    }
    const parts = [line(stat("phase", word("phase_", view.phase)), stat("contributions", view.contributions), stat("contributions_left", view.contributions_left),
      view.ritual_started_by ? stat("ritual_started_by", word("b_reason_", view.ritual_started_by)) : null),
    seats, el("section", { class: "table-area" }, el("h3", { text: t("b_story") }), story(view.story, ctx, "story"))];
    if (view.epilogues.length) parts.push(el("section", { class: "table-area" }, el("h3", { text: t("b_epilogues") }), story(view.epilogues, ctx, "epilogues")));
    return board("believers", view, ...parts, rest(view, ["phase", "contributions", "contributions_left", "ritual_started_by", "players", "story", "epilogues", "speaker"], ctx));
  }

  K.registerBoard("satori", renderSatori);
  K.registerBoard("turn-thief", renderTurnThief);
  K.registerBoard("1234", render1234);
  K.registerBoard("necropolis", renderNecropolis);
  K.registerBoard("mekuri-hinmin", renderMekuri);
  K.registerBoard("twenty-two", renderTwentyTwo);
  K.registerBoard("kazekami-kyoko", renderKyoko);
  K.registerBoard("believers", renderBelievers);
})();
