"""Elimination brackets: standard seeding (1 v N, byes to the top seeds), single and double elimination
as match graphs, a pure fold of results over them, and group-stage seeding into a playoff.

A bracket is a list of ``BracketMatch`` whose two slots each name a ``Source``: a seed, or the
winner or loser of an earlier match. Fields that are not a power of two are padded with empty
slots (the seeds above the field); a match against an empty slot is a bye, decided without play.
Brackets are built for ``bracket_size(entrants)`` lines, so ids are stable whatever the field.
Played matches: single elimination n - 1 (+1 for a third-place match from 4 entrants); double
elimination 2n - 2, or 2n - 1 when the grand final is reset.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds every entrant (the rest of the slots are byes)."""
    if entrants < 2:
        raise ValueError("a bracket needs at least two entrants")
    size = 1
    while size < entrants:
        size *= 2
    return size


def seeding_order(size: int) -> list[int]:
    """Seeds in bracket-line order for a bracket of ``size`` (a power of two).

    The standard construction (as in tennis and most published brackets): start from [1, 2] and
    repeatedly replace each seed s by the pair (s, next_size + 1 - s). Each first-round match is
    then s v size + 1 - s (1 v 8, 4 v 5, 2 v 7, 3 v 6 for 8), seeds 1 and 2 can meet only in the
    final, 1-4 only in the semi-finals, and so on.
    """
    if size < 2 or size & (size - 1):
        raise ValueError("a bracket size is a power of two, at least 2")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


def first_round(entrants: Sequence[Hashable]) -> list[tuple[Hashable, Hashable | None]]:
    """First-round matches for ``entrants`` in seed order (best first); None is a bye.

    Seeds above the entrant count are empty slots, and since seed s meets size + 1 - s, the byes
    fall to the top seeds (6 entrants: 1 and 2 have byes, 4 v 5 and 3 v 6 play).
    """
    size = bracket_size(len(entrants))
    order = seeding_order(size)
    seat = {seed: entrants[seed - 1] for seed in range(1, len(entrants) + 1)}
    return [(seat[order[i]], seat.get(order[i + 1])) for i in range(0, size, 2)]


def next_round(winners: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    """The next round from the previous round's winners in bracket order (adjacent lines meet)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("a bracket round needs an even number of winners, at least two")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


# ---- whole brackets ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where a bracket slot's player comes from: a seed (1 = top), or a match's winner or loser."""

    kind: str  # "seed" | "winner" | "loser"
    ref: int | str


@dataclass(frozen=True)
class BracketMatch:
    """One match of a bracket; ``round`` is the earliest event round it can be played in."""

    id: str
    bracket: str  # "winners" | "losers" | "grand_final" | "third_place"
    round: int
    sources: tuple[Source, Source]
    optional: bool = False


@dataclass(frozen=True)
class BracketState:
    """A bracket after the results so far (see ``bracket_state``)."""

    ready: list[tuple[str, Hashable, Hashable]]
    byes: list[tuple[str, Hashable]]
    finished: bool
    placements: list[list[Hashable]]


def single_elimination(entrants: int, *, third_place: bool = False) -> list[BracketMatch]:
    """Every match of a single-elimination bracket for ``entrants`` (byes included, see the module doc).

    ``W{r}-{k}`` is match k of round r in bracket-line order; round 1 is ``seeding_order`` pairwise, so
    seeds above ``entrants`` are byes and fall to the top seeds. ``third_place`` adds ``3P`` between the
    semi-final losers (from 4 entrants up; with 3 it is a bye for the one real semi-final loser).
    """
    size = bracket_size(entrants)
    matches = _winners_bracket(size)
    if third_place and size >= 4:
        rounds = size.bit_length() - 1
        semis = (Source("loser", f"W{rounds - 1}-1"), Source("loser", f"W{rounds - 1}-2"))
        matches.append(BracketMatch("3P", "third_place", rounds, semis))
    return matches


def double_elimination(entrants: int, *, grand_final_reset: bool = True) -> list[BracketMatch]:
    """Every match of a double-elimination bracket for ``entrants`` (byes included).

    Winners bracket as in ``single_elimination``. Losers bracket (``L{r}-{k}``) for a bracket of
    ``size`` = 2**R lines: round 1 pairs the losers of W1-(2k-1) and W1-2k; each even round 2j-2
    (j = 2..R) drops the losers of winners round j onto the survivors, and each odd round after it
    halves the field. The drop order is the "pair flip": the loser of W{j}-k meets the survivor of
    the losers' section fed by W{j}-(k xor 1) (1-based: 1<->2, 3<->4...). Every losers section then
    holds exactly the players of one winners-bracket section, and the one dropped in comes from the
    neighbouring, disjoint section - so nobody's first losers-bracket match is against someone they
    have played, except in the losers-bracket final (one slot left; unavoidable). Of the usual
    orders (natural, reverse, half shift, reverse half shift, pair flip - each is ``k xor mask``) it
    is the only one with that guarantee in every round. ``GF``: the winners-bracket champion (slot
    0) against the losers-bracket champion; ``GF2`` (optional, with ``grand_final_reset``) is played
    only when the losers-bracket champion wins GF.
    """
    size = bracket_size(entrants)
    matches = _winners_bracket(size)
    rounds = size.bit_length() - 1
    round_of = {m.id: m.round for m in matches}

    def add(match_id: str, bracket: str, sources: tuple[Source, Source], optional: bool = False) -> None:
        played = 1 + max((round_of[s.ref] for s in sources if s.kind != "seed"), default=0)
        round_of[match_id] = played
        matches.append(BracketMatch(match_id, bracket, played, sources, optional))

    survivors: list[str] = []  # match ids whose winners stand in the losers bracket, in section order
    if rounds >= 2:
        for k in range(1, size // 4 + 1):
            add(f"L1-{k}", "losers", (Source("loser", f"W1-{2 * k - 1}"), Source("loser", f"W1-{2 * k}")))
        survivors = [f"L1-{k}" for k in range(1, size // 4 + 1)]
        for j in range(2, rounds + 1):
            drop = 2 * j - 2
            count = len(survivors)
            for k in range(1, count + 1):
                flipped = ((k - 1) ^ 1) + 1 if count > 1 else k
                add(
                    f"L{drop}-{k}",
                    "losers",
                    (Source("loser", f"W{j}-{flipped}"), Source("winner", survivors[k - 1])),
                )
            survivors = [f"L{drop}-{k}" for k in range(1, count + 1)]
            if j < rounds:
                for k in range(1, count // 2 + 1):
                    add(
                        f"L{drop + 1}-{k}",
                        "losers",
                        (Source("winner", survivors[2 * k - 2]), Source("winner", survivors[2 * k - 1])),
                    )
                survivors = [f"L{drop + 1}-{k}" for k in range(1, count // 2 + 1)]
    final = f"W{rounds}-1"
    challenger = Source("winner", survivors[0]) if survivors else Source("loser", final)
    add("GF", "grand_final", (Source("winner", final), challenger))
    if grand_final_reset:
        add("GF2", "grand_final", (Source("loser", "GF"), Source("winner", "GF")), optional=True)
    return matches


def _winners_bracket(size: int) -> list[BracketMatch]:
    order = seeding_order(size)
    matches = [
        BracketMatch(f"W1-{k + 1}", "winners", 1, (Source("seed", order[2 * k]), Source("seed", order[2 * k + 1])))
        for k in range(size // 2)
    ]
    count, played = size // 4, 2
    while count >= 1:
        previous = played - 1
        matches += [
            BracketMatch(
                f"W{played}-{k}",
                "winners",
                played,
                (Source("winner", f"W{previous}-{2 * k - 1}"), Source("winner", f"W{previous}-{2 * k}")),
            )
            for k in range(1, count + 1)
        ]
        count //= 2
        played += 1
    return matches


class _Empty:
    """The player of an empty slot (a seed above the field): loses every match to a real player."""

    def __repr__(self) -> str:
        return "<bye>"


_EMPTY = _Empty()


def bracket_state(
    matches: Sequence[BracketMatch], seeds: Sequence[Hashable], results: Mapping[str, int]
) -> BracketState:
    """Fold ``results`` (match id -> the slot that won, 0 or 1) over a bracket.

    ``seeds`` are the entrants best first; seed numbers above ``len(seeds)`` are empty. A match
    against an empty slot is a bye: the player advances without playing (listed in ``byes``) and
    the empty slot "loses" - into the losers bracket, where it gives its next opponent a bye, so a
    bye never costs anyone a life. Two empty slots make an empty winner and loser. ``GF2`` is needed
    only when slot 1 (the losers-bracket champion) wins ``GF``. A result for an unknown match, for a
    match whose players are not both known, or for a bye is a ValueError, as is any value but 0/1.

    Placements (when finished): the champion, the runner-up, then the eliminated grouped by the
    last match they lost, later rounds first (a third-place match separates 3rd from 4th); in a
    double-elimination bracket everyone else goes out in the losers bracket, so its rounds decide.
    """
    if len(set(seeds)) != len(seeds) or len(seeds) < 2:
        raise ValueError("a bracket needs at least two different entrants")
    by_id = {m.id: m for m in matches}
    if len(by_id) != len(matches):
        raise ValueError("match ids must be unique")
    for match_id, slot in results.items():
        if match_id not in by_id:
            raise ValueError(f"no match {match_id!r} in this bracket")
        if slot not in (0, 1):
            raise ValueError(f"the result of {match_id} must be 0 or 1 (the winning slot), not {slot!r}")
    outcome: dict[str, tuple[Hashable, Hashable] | None] = {}  # id -> (winner, loser), None: undecided
    ready, byes = [], []
    skipped: set[str] = set()

    def player(source: Source) -> Hashable | None:
        if source.kind == "seed":
            return seeds[source.ref - 1] if 1 <= source.ref <= len(seeds) else _EMPTY
        decided = outcome[source.ref]
        if decided is None:
            return None
        return decided[0] if source.kind == "winner" else decided[1]

    for match in _in_dependency_order(matches, by_id):
        a, b = (player(s) for s in match.sources)
        outcome[match.id] = None
        if match.optional:  # GF2: its players are GF's, and it is played only if slot 1 won GF
            gf = results.get(match.sources[1].ref)
            if gf is None:
                if match.id in results:
                    raise ValueError("GF2 has no players before GF is decided")
                continue
            if gf == 0:
                skipped.add(match.id)
                if match.id in results:
                    raise ValueError("GF2 is not played: the winners-bracket champion won GF")
                continue
        if a is None or b is None:
            if match.id in results:
                raise ValueError(f"{match.id} has no result yet: its players are not both known")
            continue
        if a is _EMPTY or b is _EMPTY:
            if match.id in results:
                raise ValueError(f"{match.id} is a bye; it takes no result")
            winner, loser = (b, a) if a is _EMPTY else (a, b)
            outcome[match.id] = (winner, loser)
            if winner is not _EMPTY:
                byes.append((match.id, winner))
            continue
        if match.id in results:
            slot = results[match.id]
            outcome[match.id] = (a, b) if slot == 0 else (b, a)
        else:
            ready.append((match.id, a, b))
    finished = all(outcome[m.id] is not None or m.id in skipped for m in matches)
    placements = _placements(matches, outcome, by_id, seeds) if finished else []
    return BracketState(ready, byes, finished, placements)


def _in_dependency_order(matches: Sequence[BracketMatch], by_id: dict[str, BracketMatch]) -> list[BracketMatch]:
    done: set[str] = set()
    order: list[BracketMatch] = []

    def visit(match: BracketMatch, path: tuple[str, ...]) -> None:
        if match.id in done:
            return
        if match.id in path:
            raise ValueError(f"the bracket loops through {match.id}")
        for source in match.sources:
            if source.kind != "seed":
                if source.ref not in by_id:
                    raise ValueError(f"{match.id} takes a player from unknown match {source.ref!r}")
                visit(by_id[source.ref], (*path, match.id))
        done.add(match.id)
        order.append(match)

    for match in matches:
        visit(match, ())
    return order


def _placements(
    matches: Sequence[BracketMatch],
    outcome: Mapping[str, tuple[Hashable, Hashable] | None],
    by_id: Mapping[str, BracketMatch],
    seeds: Sequence[Hashable],
) -> list[list[Hashable]]:
    last = "GF2" if outcome.get("GF2") is not None else "GF" if "GF" in by_id else None
    if last is None:  # single elimination: the final is the last winners-bracket match
        last = max((m for m in matches if m.bracket == "winners"), key=lambda m: m.round).id
    champion, runner_up = outcome[last]
    placed = {champion, runner_up}
    groups: list[list[Hashable]] = [[champion], [runner_up]]
    if "3P" in by_id and outcome["3P"] is not None:
        for who in outcome["3P"]:
            if who is not _EMPTY:
                groups.append([who])
                placed.add(who)
    # the rest by the (event round, bracket) of their last loss: later is better
    lost_in: dict[Hashable, tuple[int, int]] = {}
    for match in matches:
        decided = outcome.get(match.id)
        if decided is None or decided[1] is _EMPTY or decided[1] in placed:
            continue
        key = (match.round, 1 if match.bracket == "losers" else 0)
        lost_in[decided[1]] = max(lost_in.get(decided[1], key), key)
    for key in sorted(set(lost_in.values()), reverse=True):
        groups.append([p for p in seeds if lost_in.get(p) == key])  # a tied group in seed order
    return groups


# ---- groups into a playoff -----------------------------------------------------------------------


def group_assignment(seeds: Sequence[Hashable], groups: int) -> list[list[Hashable]]:
    """Snake ("serpentine") seeding into ``groups`` groups: seeds 1..g go to groups A..G, seeds
    g+1..2g back from G to A, and so on (A: 1, 2g, 2g+1, 4g...; B: 2, 2g-1, 2g+2...), which
    balances the groups' seed totals."""
    if groups < 1:
        raise ValueError("groups must be at least 1")
    if len(set(seeds)) != len(seeds):
        raise ValueError("each entrant may appear only once")
    if len(seeds) < 2 * groups:
        raise ValueError(f"{len(seeds)} entrants cannot fill {groups} groups of at least two")
    result: list[list[Hashable]] = [[] for _ in range(groups)]
    for index, seed in enumerate(seeds):
        row, column = divmod(index, groups)
        result[column if row % 2 == 0 else groups - 1 - column].append(seed)
    return result


def playoff_seeding(group_rankings: Sequence[Sequence[Hashable]], advance: int) -> list[Hashable]:
    """Playoff seeds (best first, for ``single_elimination``) from each group's final ranking.

    The top ``advance`` of every group go through. Group winners take seeds 1..g in group order,
    then each further tier (runners-up, thirds, ...) takes the next seeds. Inside a tier the seeds
    are handed out so that a player meets their own group's players as late as possible: the
    weight of giving a seed to a group's player counts, for every player of that group already
    seeded, B ** (R - r), where r is the round in which the two bracket lines can first meet
    (R = the final) and B exceeds the number of such pairs, so one earlier meeting outweighs any
    number of later ones; one minimum-weight assignment per tier (networkx matching) picks the
    seeds, ties going to the lower seed for the earlier group.
    """
    if advance < 1:
        raise ValueError("advance must be at least 1")
    if not group_rankings:
        raise ValueError("no groups")
    flat = [p for group in group_rankings for p in group[:advance]]
    if len(set(flat)) != len(flat):
        raise ValueError("each player may appear in one group only, once")
    if len(flat) < 2:
        raise ValueError("a playoff needs at least two players")
    size = bracket_size(len(flat))
    line = {seed: index for index, seed in enumerate(seeding_order(size))}
    rounds = size.bit_length() - 1
    base = len(flat) ** 2 + 1

    def meets(a: int, b: int) -> int:  # the round in which seeds a and b can first meet
        return (line[a] ^ line[b]).bit_length()

    seeded: list[Hashable] = []
    seat_of: dict[int, list[int]] = {}  # group index -> the seeds its players hold
    for tier in range(advance):
        members = [(g, ranking[tier]) for g, ranking in enumerate(group_rankings) if tier < len(ranking)]
        if not members:
            break
        first = len(seeded) + 1
        numbers = list(range(first, first + len(members)))
        graph = nx.Graph()
        cost = {
            (g, number): sum(base ** (rounds - meets(number, other)) for other in seat_of.get(g, []))
            for g, _ in members
            for number in numbers
        }
        top = max(cost.values()) + 1
        spread = len(members) + 1
        for position, (g, _) in enumerate(members):
            for offset, number in enumerate(numbers):
                # every weight positive; the clash dominates, then the natural order (group k -> k-th seed)
                weight = (top - cost[g, number]) * spread * spread - abs(position - offset)
                graph.add_edge(("group", g), ("seed", number), weight=weight)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        given = {}
        for u, v in matching:
            group_node, seed_node = (u, v) if u[0] == "group" else (v, u)
            given[seed_node[1]] = group_node[1]
        player_of = dict(members)
        for number in numbers:
            g = given[number]
            seeded.append(player_of[g])
            seat_of.setdefault(g, []).append(number)
    return seeded
