"""Maximum-weight perfect matching with its LP dual, for certified pairings (Edmonds 1965).

``perfect_matching(n, edges)`` is Edmonds' primal-dual blossom algorithm as written by Joris van
Rantwijk (``mwmatching.py``, public domain; networkx's ``max_weight_matching`` is a port of the
same code), kept array-based and changed in two ways:

- it returns the dual solution as well as the matching: vertex duals ``y`` and the odd sets
  (blossoms) ``B`` with their duals ``z_B >= 0``, scaled by four so they stay integers. For every
  edge ``y_i + y_j + 2 * sum(z_B for B containing i and j) >= 4 * w_ij``, with equality on matched
  edges, and ``sum(y) + sum(z_B * (|B| - 1)) == 4 * w(M)``. By weak LP duality for the perfect
  matching polytope, any other perfect matching ``M'`` of *any* graph on the same vertices whose
  edges all satisfy that inequality weighs at most ``w(M)``: summing the inequality over ``M'``
  gives ``4 w(M') <= sum(y) + sum(z_B * 2|M' inside B|) <= sum(y) + sum(z_B * (|B| - 1))``.
  That is what lets a caller solve a sparse graph and prove the result optimal on a bigger one
  by checking ("pricing") the edges it left out - see :meth:`Certificate.slack`.
- it starts from a feasible dual and a greedy matching of tight edges instead of from nothing
  (each vertex's dual starts at its best incident weight and is lowered as far as its
  neighbours allow), so a graph whose best edges already form most of a perfect matching needs
  few augmenting stages. Only perfect matchings are sought (maximum cardinality, free duals).
  Weights are doubled inside so every starting dual is even: the algorithm's integer steps
  (half an S-S slack) rely on all free vertices having duals of one parity.

The certificate does not trust this code: :meth:`Certificate.verify` re-checks feasibility on
every edge given, tightness of the matching and the objective, so a bug here can cost time (the
caller falls back) but never a wrong "optimal" answer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Certificate:
    """A perfect matching and its dual. ``mate[v]`` is v's partner; ``duals`` the vertex duals
    (times four); ``blossoms`` (vertex set, z) for every odd set with a positive dual; ``member[v]`` the
    indices into ``blossoms`` of the sets holding v."""

    mate: list[int]
    duals: list[int]
    blossoms: list[tuple[frozenset[int], int]]
    member: list[tuple[int, ...]]

    def slack(self, i: int, j: int, weight: int) -> int:
        """Reduced cost of edge (i, j), times four: negative means the dual does not cover it."""
        s = self.duals[i] + self.duals[j] - 4 * weight
        if s < 0 and self.member[i] and self.member[j]:
            shared = set(self.member[i]).intersection(self.member[j])
            s += 2 * sum(self.blossoms[b][1] for b in shared)
        return s

    def verify(self, edges: list[tuple[int, int, int]]) -> bool:
        """True when the dual is feasible on ``edges``, the matching uses tight edges of ``edges``
        and the primal and dual objectives agree - i.e. the matching is optimal on ``edges``."""
        n = len(self.mate)
        weights = {}
        for i, j, w in edges:
            if self.slack(i, j, w) < 0:
                return False
            weights[(min(i, j), max(i, j))] = w
        total = 0
        for v in range(n):
            u = self.mate[v]
            if u < 0 or self.mate[u] != v:
                return False
            if v < u:
                w = weights.get((v, u))
                if w is None or self.slack(v, u, w) != 0:
                    return False
                total += w
        if any(z < 0 or len(b) % 2 == 0 for b, z in self.blossoms):
            return False
        return sum(self.duals) + sum(z * (len(b) - 1) for b, z in self.blossoms) == 4 * total


def perfect_matching(n: int, edges: list[tuple[int, int, int]]) -> Certificate | None:
    """A maximum-weight perfect matching of vertices 0..n-1 over ``edges`` (i, j, integer weight,
    i != j, no duplicates) with its dual, or None when the graph has no perfect matching."""
    if n == 0:
        return Certificate([], [], [], [])
    edges = [(i, j, 2 * w) for i, j, w in edges]
    nedge = len(edges)
    endpoint = [edges[p // 2][p % 2] for p in range(2 * nedge)]
    neighbend: list[list[int]] = [[] for _ in range(n)]
    for k, (i, j, _) in enumerate(edges):
        neighbend[i].append(2 * k + 1)
        neighbend[j].append(2 * k)
    if any(not ends for ends in neighbend):
        return None
    weight = [w for _, _, w in edges]
    mate = [-1] * n  # remote endpoint of the matched edge
    label = [0] * (2 * n)
    labelend = [-1] * (2 * n)
    inblossom = list(range(n))
    blossomparent = [-1] * (2 * n)
    blossomchilds: list = [None] * (2 * n)
    blossombase = list(range(n)) + [-1] * n
    blossomendps: list = [None] * (2 * n)
    bestedge = [-1] * (2 * n)
    blossombestedges: list = [None] * (2 * n)
    unusedblossoms = list(range(n, 2 * n))
    dualvar = [0] * (2 * n)
    allowedge = [False] * nedge
    queue: list[int] = []
    live: set[int] = set()  # blossoms in use
    watched: set[int] = set()  # vertices and blossoms given a best edge in this stage

    # warm start: each dual at its best incident weight, then lowered while the dual stays feasible
    for v in range(n):
        dualvar[v] = max(weight[p // 2] for p in neighbend[v])
    for v in range(n):
        dualvar[v] = max(2 * weight[p // 2] - dualvar[endpoint[p]] for p in neighbend[v])
    for v in range(n):
        if mate[v] >= 0:
            continue
        for p in neighbend[v]:
            u = endpoint[p]
            if mate[u] < 0 and dualvar[v] + dualvar[u] == 2 * weight[p // 2]:
                mate[v], mate[u] = p, p ^ 1
                break

    def slack(k: int) -> int:
        i, j, w = edges[k]
        return dualvar[i] + dualvar[j] - 2 * w

    def leaves(b: int) -> list[int]:
        if b < n:
            return [b]
        found, stack = [], [b]
        while stack:
            t = stack.pop()
            if t < n:
                found.append(t)
            else:
                stack.extend(blossomchilds[t])
        return found

    def assign_label(w: int, t: int, p: int) -> None:
        while True:
            b = inblossom[w]
            label[w] = label[b] = t
            labelend[w] = labelend[b] = p
            bestedge[w] = bestedge[b] = -1
            if t == 1:
                queue.extend(leaves(b))
                return
            base = blossombase[b]
            w, t, p = endpoint[mate[base]], 1, mate[base] ^ 1

    def scan_blossom(v: int, w: int) -> int:
        path = []
        base = -1
        while v != -1 or w != -1:
            b = inblossom[v]
            if label[b] & 4:
                base = blossombase[b]
                break
            path.append(b)
            label[b] = 5
            if labelend[b] == -1:
                v = -1
            else:
                v = endpoint[labelend[b]]
                b = inblossom[v]
                v = endpoint[labelend[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    def add_blossom(base: int, k: int) -> None:
        v, w, _ = edges[k]
        bb, bv, bw = inblossom[base], inblossom[v], inblossom[w]
        b = unusedblossoms.pop()
        live.add(b)
        blossombase[b] = base
        blossomparent[b] = -1
        blossomparent[bb] = b
        blossomchilds[b] = path = []
        blossomendps[b] = endps = []
        while bv != bb:
            blossomparent[bv] = b
            path.append(bv)
            endps.append(labelend[bv])
            v = endpoint[labelend[bv]]
            bv = inblossom[v]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            blossomparent[bw] = b
            path.append(bw)
            endps.append(labelend[bw] ^ 1)
            w = endpoint[labelend[bw]]
            bw = inblossom[w]
        label[b] = 1
        labelend[b] = labelend[bb]
        dualvar[b] = 0
        for v in leaves(b):
            if label[inblossom[v]] == 2:
                queue.append(v)
            inblossom[v] = b
        bestedgeto: dict[int, int] = {}
        for bv in path:
            if blossombestedges[bv] is None:
                nblist = [p // 2 for v in leaves(bv) for p in neighbend[v]]
            else:
                nblist = blossombestedges[bv]
            for k in nblist:
                i, j, _ = edges[k]
                if inblossom[j] == b:
                    i, j = j, i
                bj = inblossom[j]
                if bj != b and label[bj] == 1 and (bj not in bestedgeto or slack(k) < slack(bestedgeto[bj])):
                    bestedgeto[bj] = k
            blossombestedges[bv] = None
            bestedge[bv] = -1
        blossombestedges[b] = list(bestedgeto.values())
        best = -1
        for k in blossombestedges[b]:
            if best == -1 or slack(k) < slack(best):
                best = k
        bestedge[b] = best
        watched.add(b)

    def expand_blossom(b: int, endstage: bool) -> None:
        for s in blossomchilds[b]:
            blossomparent[s] = -1
            if s < n:
                inblossom[s] = s
            elif endstage and dualvar[s] == 0:
                expand_blossom(s, endstage)
            else:
                for v in leaves(s):
                    inblossom[v] = s
        if not endstage and label[b] == 2:
            entrychild = inblossom[endpoint[labelend[b] ^ 1]]
            j = blossomchilds[b].index(entrychild)
            if j & 1:
                j -= len(blossomchilds[b])
                jstep, endptrick = 1, 0
            else:
                jstep, endptrick = -1, 1
            p = labelend[b]
            while j != 0:
                label[endpoint[p ^ 1]] = 0
                label[endpoint[blossomendps[b][j - endptrick] ^ endptrick ^ 1]] = 0
                assign_label(endpoint[p ^ 1], 2, p)
                allowedge[blossomendps[b][j - endptrick] // 2] = True
                j += jstep
                p = blossomendps[b][j - endptrick] ^ endptrick
                allowedge[p // 2] = True
                j += jstep
            bv = blossomchilds[b][j]
            label[endpoint[p ^ 1]] = label[bv] = 2
            labelend[endpoint[p ^ 1]] = labelend[bv] = p
            bestedge[bv] = -1
            j += jstep
            while blossomchilds[b][j] != entrychild:
                bv = blossomchilds[b][j]
                if label[bv] == 1:
                    j += jstep
                    continue
                for v in leaves(bv):
                    if label[v] != 0:
                        break
                if label[v] != 0:
                    label[v] = 0
                    label[endpoint[mate[blossombase[bv]]]] = 0
                    assign_label(v, 2, labelend[v])
                j += jstep
        label[b] = labelend[b] = -1
        blossomchilds[b] = blossomendps[b] = None
        blossombase[b] = -1
        blossombestedges[b] = None
        bestedge[b] = -1
        unusedblossoms.append(b)
        live.discard(b)

    def augment_blossom(b: int, v: int) -> None:
        t = v
        while blossomparent[t] != b:
            t = blossomparent[t]
        if t >= n:
            augment_blossom(t, v)
        i = j = blossomchilds[b].index(t)
        if i & 1:
            j -= len(blossomchilds[b])
            jstep, endptrick = 1, 0
        else:
            jstep, endptrick = -1, 1
        while j != 0:
            j += jstep
            t = blossomchilds[b][j]
            p = blossomendps[b][j - endptrick] ^ endptrick
            if t >= n:
                augment_blossom(t, endpoint[p])
            j += jstep
            t = blossomchilds[b][j]
            if t >= n:
                augment_blossom(t, endpoint[p ^ 1])
            mate[endpoint[p]] = p ^ 1
            mate[endpoint[p ^ 1]] = p
        blossomchilds[b] = blossomchilds[b][i:] + blossomchilds[b][:i]
        blossomendps[b] = blossomendps[b][i:] + blossomendps[b][:i]
        blossombase[b] = blossombase[blossomchilds[b][0]]

    def augment_matching(k: int) -> None:
        v, w, _ = edges[k]
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
            while True:
                bs = inblossom[s]
                if bs >= n:
                    augment_blossom(bs, s)
                mate[s] = p
                if labelend[bs] == -1:
                    break
                t = endpoint[labelend[bs]]
                bt = inblossom[t]
                s = endpoint[labelend[bt]]
                j = endpoint[labelend[bt] ^ 1]
                if bt >= n:
                    augment_blossom(bt, j)
                mate[j] = labelend[bt]
                p = labelend[bt] ^ 1

    while any(m < 0 for m in mate):  # one augmenting path per stage
        label[:] = [0] * (2 * n)
        bestedge[:] = [-1] * (2 * n)
        blossombestedges[n:] = [None] * n
        allowedge[:] = [False] * nedge
        queue[:] = []
        watched.clear()
        for v in [v for v in range(n) if mate[v] == -1]:
            if label[inblossom[v]] == 0:
                assign_label(v, 1, -1)
        augmented = False
        while True:
            while queue and not augmented:
                v = queue.pop()
                for p in neighbend[v]:
                    k = p // 2
                    w = endpoint[p]
                    if inblossom[v] == inblossom[w]:
                        continue
                    if not allowedge[k]:
                        kslack = dualvar[v] + dualvar[w] - 2 * weight[k]
                        if kslack <= 0:
                            allowedge[k] = True
                    if allowedge[k]:
                        if label[inblossom[w]] == 0:
                            assign_label(w, 2, p ^ 1)
                        elif label[inblossom[w]] == 1:
                            base = scan_blossom(v, w)
                            if base >= 0:
                                add_blossom(base, k)
                            else:
                                augment_matching(k)
                                augmented = True
                                break
                        elif label[w] == 0:
                            label[w] = 2
                            labelend[w] = p ^ 1
                    elif label[inblossom[w]] == 1:
                        b = inblossom[v]
                        if bestedge[b] == -1 or kslack < slack(bestedge[b]):
                            bestedge[b] = k
                            watched.add(b)
                    elif label[w] == 0:
                        if bestedge[w] == -1 or kslack < slack(bestedge[w]):
                            bestedge[w] = k
                            watched.add(w)
            if augmented:
                break
            deltatype, delta, deltaedge, deltablossom = -1, 0, -1, -1
            order = sorted(watched)
            for v in order:
                if v < n and label[inblossom[v]] == 0 and bestedge[v] != -1:
                    d = slack(bestedge[v])
                    if deltatype == -1 or d < delta:
                        deltatype, delta, deltaedge = 2, d, bestedge[v]
            for b in order:
                if blossomparent[b] == -1 and label[b] == 1 and bestedge[b] != -1:
                    d = slack(bestedge[b]) // 2
                    if deltatype == -1 or d < delta:
                        deltatype, delta, deltaedge = 3, d, bestedge[b]
            blossoms = sorted(live)
            for b in blossoms:
                if blossomparent[b] == -1 and label[b] == 2 and (deltatype == -1 or dualvar[b] < delta):
                    deltatype, delta, deltablossom = 4, dualvar[b], b
            if deltatype == -1:
                return None  # no augmenting path: the graph has no perfect matching
            dualvar[:n] = [
                d - delta if t == 1 else d + delta if t == 2 else d
                for d, t in zip(dualvar[:n], [label[b] for b in inblossom], strict=True)
            ]
            for b in blossoms:
                if blossomparent[b] == -1:
                    if label[b] == 1:
                        dualvar[b] += delta
                    elif label[b] == 2:
                        dualvar[b] -= delta
            if deltatype == 2:
                allowedge[deltaedge] = True
                i, j, _ = edges[deltaedge]
                if label[inblossom[i]] == 0:
                    i = j
                queue.append(i)
            elif deltatype == 3:
                allowedge[deltaedge] = True
                queue.append(edges[deltaedge][0])
            else:
                expand_blossom(deltablossom, False)
        for b in sorted(live):
            if blossomparent[b] == -1 and blossombase[b] >= 0 and label[b] == 1 and dualvar[b] == 0:
                expand_blossom(b, True)

    partner = [endpoint[mate[v]] for v in range(n)]
    blossoms = [(frozenset(leaves(b)), dualvar[b]) for b in range(n, 2 * n) if blossombase[b] >= 0 and dualvar[b] > 0]
    member: list[list[int]] = [[] for _ in range(n)]
    for index, (vertices, _) in enumerate(blossoms):
        for v in vertices:
            member[v].append(index)
    return Certificate(partner, dualvar[:n], blossoms, [tuple(m) for m in member])
