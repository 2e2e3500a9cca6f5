"""A layered drawing of a :class:`PlotGraph` (Sugiyama style), with no graphviz.

Ranks are longest paths from the inputs (inputs pulled down next to their first user);
edges that skip ranks pass through small virtual nodes; each rank is ordered by the
barycenter of its neighbours, with the boxes of one nested model kept together; positions
along a rank are the least-squares fit to the neighbours' positions under the minimum gaps
(pool-adjacent-violators). Everything is laid out top to bottom, then turned for ``LR``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .boxes import Box, measure_box

NODE_GAP = 24.0
DUMMY_WIDTH = 8.0
CLUSTER_PAD = 12.0
CLUSTER_TITLE = 22.0
RANK_GAP = 40.0
MARGIN = 8.0
ARROW = (10.0, 4.5)       # arrowhead length and half width


@dataclass
class Layout:
    width: float
    height: float
    boxes: list
    clusters: list = field(default_factory=list)   # (x, y, width, height, title, depth)
    edges: list = field(default_factory=list)      # (path commands, arrowhead points)


def _ranks(keys, edges) -> dict:
    preds = {k: [] for k in keys}
    succs = {k: [] for k in keys}
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    rank, pending = {}, {k: len(preds[k]) for k in keys}
    ready = [k for k in keys if pending[k] == 0]
    while ready:
        k = ready.pop(0)
        rank[k] = max((rank[p] + 1 for p in preds[k]), default=0)
        for s in succs[k]:
            pending[s] -= 1
            if pending[s] == 0:
                ready.append(s)
    for k in keys:                 # a cycle cannot come from a model; stay total anyway
        rank.setdefault(k, 0)
    for k in keys:                 # an input sits just above its first consumer
        if not preds[k] and succs[k]:
            rank[k] = min(rank[s] for s in succs[k]) - 1
    return rank


def _common(a: tuple, b: tuple) -> tuple:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _isotonic(targets, gaps):
    """Positions closest (least squares) to ``targets`` with p[i] - p[i-1] >= gaps[i]."""
    offsets, total = [], 0.0
    for g in gaps:
        total += g
        offsets.append(total)
    blocks = []                    # [mean, count]
    for t, o in zip(targets, offsets):
        blocks.append([t - o, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, c2 = blocks.pop()
            m1, c1 = blocks.pop()
            blocks.append([(m1 * c1 + m2 * c2) / (c1 + c2), c1 + c2])
    values = [m for m, c in blocks for _ in range(c)]
    return [v + o for v, o in zip(values, offsets)]


class _Layered:
    def __init__(self, graph, measure, horizontal: bool):
        self.horizontal = horizontal
        self.boxes = {n.key: measure_box(n, measure) for n in graph.nodes}
        self.path = {n.key: n.clusters for n in graph.nodes}
        # Work top to bottom: a left-to-right picture swaps each box's sides first.
        self.size = {k: ((b.height, b.width) if horizontal else (b.width, b.height))
                     for k, b in self.boxes.items()}
        keys = [n.key for n in graph.nodes]
        pairs = graph.pairs()
        rank = _ranks(keys, pairs)
        self.chains = []
        edges = []
        for a, b in pairs:
            chain = [a]
            for r in range(rank[a] + 1, rank[b]):
                dummy = f"~{len(self.size)}"
                self.size[dummy] = (DUMMY_WIDTH, 0.0)
                self.path[dummy] = _common(self.path[a], self.path[b])
                rank[dummy] = r
                chain.append(dummy)
            chain.append(b)
            edges += list(zip(chain, chain[1:]))
            self.chains.append(chain)
        self.preds = {k: [] for k in self.size}
        self.succs = {k: [] for k in self.size}
        for a, b in edges:
            self.preds[b].append(a)
            self.succs[a].append(b)
        low = min(rank.values(), default=0)
        self.layers = [[] for _ in range(max(rank.values(), default=0) - low + 1)]
        for k in self.size:
            self.layers[rank[k] - low].append(k)
        self.rank = {k: r - low for k, r in rank.items()}

    # ---------------------------------------------------------------- order
    def order(self, sweeps: int = 8) -> None:
        for sweep in range(sweeps):
            down = sweep % 2 == 0
            layers = range(1, len(self.layers)) if down else range(len(self.layers) - 2, -1, -1)
            for r in layers:
                near = self.layers[r - 1] if down else self.layers[r + 1]
                place = {k: i for i, k in enumerate(near)}
                links = self.preds if down else self.succs
                self.layers[r] = self._sorted(self.layers[r], place, links)

    def _sorted(self, layer, place, links) -> list:
        bary = {}
        for i, k in enumerate(layer):
            around = [place[n] for n in links[k] if n in place]
            bary[k] = sum(around) / len(around) * len(layer) / max(len(place), 1) \
                if around else float(i)
        depth = max((len(self.path[k]) for k in layer), default=0)

        def group(k, level):
            path = self.path[k]
            return path[:level + 1] if level < len(path) else path + (k,)

        means = {}
        for level in range(depth + 1):
            for k in layer:
                g = group(k, level)
                members = [m for m in layer if group(m, level) == g]
                means[(level, g)] = sum(bary[m] for m in members) / len(members)

        def key(k):
            parts = []
            for level in range(depth + 1):
                g = group(k, level)
                parts.append((means[(level, g)], str(g)))
            return parts
        return sorted(layer, key=key)

    # ---------------------------------------------------------------- positions
    def gap(self, a, b) -> float:
        (wa, _), (wb, _) = self.size[a], self.size[b]
        common = len(_common(self.path[a], self.path[b]))
        crossings = (len(self.path[a]) - common) + (len(self.path[b]) - common)
        pad = CLUSTER_PAD + (CLUSTER_TITLE if self.horizontal else 0.0)
        dummy = a.startswith("~") or b.startswith("~")
        return (wa + wb) / 2 + (NODE_GAP / 2 if dummy else NODE_GAP) + crossings * pad

    def positions(self, sweeps: int = 12) -> dict:
        x = {}
        for layer in self.layers:
            p = 0.0
            for i, k in enumerate(layer):
                p = p + self.gap(layer[i - 1], k) if i else 0.0
                x[k] = p
        for sweep in range(sweeps):
            down = sweep % 2 == 0
            order = self.layers if down else self.layers[::-1]
            for layer in order:
                targets = []
                for k in layer:
                    around = self.preds[k] + self.succs[k] if sweep >= sweeps - 2 else \
                        (self.preds[k] if down else self.succs[k])
                    targets.append(sum(x[n] for n in around) / len(around) if around
                                   else x[k])
                gaps = [0.0] + [self.gap(a, b) for a, b in zip(layer, layer[1:])]
                for k, p in zip(layer, _isotonic(targets, gaps)):
                    x[k] = p
        return x

    def depths(self) -> tuple:
        thick = [max((self.size[k][1] for k in layer), default=0.0) for layer in self.layers]
        deepest = max((len(p) for p in self.path.values()), default=0)
        step = RANK_GAP + deepest * (CLUSTER_PAD + (0.0 if self.horizontal else
                                                    CLUSTER_TITLE))
        tops, y = [], 0.0
        for t in thick:
            tops.append(y)
            y += t + step
        return tops, thick
