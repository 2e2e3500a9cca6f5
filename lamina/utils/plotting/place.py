"""Final coordinates: boxes, dashed cluster frames and routed edges of a :class:`Layout`."""
from __future__ import annotations

from .font_metrics import text_width
from .labels import visible
from .layout import (ARROW, CLUSTER_PAD, CLUSTER_TITLE, MARGIN, Layout, _isotonic,
                     _Layered)

PORT_GAP = 16.0
TITLE_SIZE = 14      # a cluster's title: font size and inset from the frame's left
TITLE_INSET = 8.0
PORT_MARGIN = 10.0

SPLINES = {"ortho": "ortho", "line": "line", "polyline": "line", "false": "line",
           "none": "line", "": "line", "curved": "curved", "spline": "curved",
           "true": "curved"}
RANKDIRS = ("TB", "LR", "BT", "RL")


def layout(graph, rankdir: str = "TB", splines: str = "ortho",
           measure=text_width) -> Layout:
    """Lay ``graph`` out; ``measure(text, size, bold)`` gives a text run's width."""
    style = SPLINES[str(splines).lower()]
    horizontal = rankdir in ("LR", "RL")
    work = _Layered(graph, measure, horizontal)
    work.order()
    x = work.positions()
    tops, thick = work.depths()
    centre = {k: (x[k], tops[work.rank[k]] + thick[work.rank[k]] / 2) for k in work.size}

    def top(k):
        return centre[k][1] - work.size[k][1] / 2

    def bottom(k):
        return centre[k][1] + work.size[k][1] / 2

    ports_out, ports_in = _ports(work, centre)
    lanes = _lanes(work, centre, ports_out, ports_in, style)
    edges = []
    for index, chain in enumerate(work.chains):
        a, b = chain[0], chain[-1]
        tip = (ports_in[(index, b)], top(b))
        # One link per pair of ranks: from a box's (or virtual node's) bottom to the next
        # one's top; a virtual node is passed straight through.
        starts = [(ports_out[(index, a)], bottom(a))] + \
                 [(centre[d][0], bottom(d)) for d in chain[1:-1]]
        ends = [(centre[d][0], top(d)) for d in chain[1:-1]] + [(tip[0], tip[1] - ARROW[0])]
        commands = [("M", starts[0])]
        for link, (p, q) in enumerate(zip(starts, ends)):
            if link:
                commands.append(("L", p))
            if abs(q[0] - p[0]) < 0.5 or style == "line":
                commands.append(("L", q))
            elif style == "ortho":
                m = lanes[(index, link)]
                commands += [("L", (p[0], m)), ("L", (q[0], m)), ("L", q)]
            else:
                d = (q[1] - p[1]) / 2
                commands.append(("C", (p[0], p[1] + d), (q[0], q[1] - d), q))
        arrow = [tip, (tip[0] - ARROW[1], tip[1] - ARROW[0]),
                 (tip[0] + ARROW[1], tip[1] - ARROW[0])]
        edges.append((commands, arrow))
    return _finish(work, graph, centre, edges, rankdir, measure)


def _ports(work, centre):
    """Where each edge reaches its destination and leaves its source: as close to the
    other end as the box allows (a straight line where the ends overlap), at least
    PORT_GAP apart along the side, in the order of the other ends."""
    ports_in = _spread(work, centre, {
        (index, chain[-1]): centre[chain[-2]][0] for index, chain in enumerate(work.chains)})
    ports_out = _spread(work, centre, {
        (index, chain[0]): centre[chain[1]][0] if len(chain) > 2 else
        ports_in[(index, chain[-1])] for index, chain in enumerate(work.chains)})
    return ports_out, ports_in


def _spread(work, centre, wanted: dict) -> dict:
    by_node = {}
    for (index, k), x in wanted.items():
        by_node.setdefault(k, []).append((x, index))
    ports = {}
    for k, ends in by_node.items():
        ends.sort()
        half = work.size[k][0] / 2 - PORT_MARGIN
        low, high = centre[k][0] - max(half, 0.0), centre[k][0] + max(half, 0.0)
        gap = min(PORT_GAP, (high - low) / max(len(ends) - 1, 1))
        targets = [min(max(x, low), high) for x, _ in ends]
        placed = _isotonic(targets, [0.0] + [gap] * (len(ends) - 1))
        shift = 0.0                  # pushed past an end: slide the row back inside
        if placed[-1] > high:
            shift = placed[-1] - high
        elif placed[0] < low:
            shift = placed[0] - low
        for (_, index), x in zip(ends, placed):
            ports[(index, k)] = x - shift
    return ports


def _lanes(work, centre, ports_out, ports_in, style):
    """The height of each right-angle edge's horizontal run, one lane per edge in a gap."""
    if style != "ortho":
        return {}
    tops, thick = work.depths()
    runs = {}
    for index, chain in enumerate(work.chains):
        xs = [ports_out[(index, chain[0])]] + [centre[d][0] for d in chain[1:-1]] + \
             [ports_in[(index, chain[-1])]]
        for step, (a, p, q) in enumerate(zip(chain, xs, xs[1:])):
            if abs(q - p) >= 0.5:
                runs.setdefault(work.rank[a], []).append(((p + q) / 2, index, step))
    lanes = {}
    for r, items in runs.items():
        start = tops[r] + thick[r] + 4
        stop = tops[r + 1] - ARROW[0] - 4
        items.sort()
        for j, (_, index, step) in enumerate(items):
            lanes[(index, step)] = start + (stop - start) * (j + 1) / (len(items) + 1)
    return lanes


def _finish(work, graph, centre, edges, rankdir, measure=text_width) -> Layout:
    flip_main = rankdir in ("BT", "RL")
    horizontal = rankdir in ("LR", "RL")
    extent = max((c[1] + work.size[k][1] / 2 for k, c in centre.items()), default=0.0)

    def turn(point):
        px, py = point
        if flip_main:
            py = extent - py
        return (py, px) if horizontal else (px, py)

    def turn_commands(commands):
        return [(c[0],) + tuple(turn(p) for p in c[1:]) for c in commands]

    edges = [(turn_commands(c), [turn(p) for p in a]) for c, a in edges]
    boxes = []
    for k, box in work.boxes.items():
        box.x, box.y = turn(centre[k])
        boxes.append(box)
    frames = {}
    for key in sorted(graph.clusters, key=lambda c: -_depth(graph, c)):
        xs, ys = [], []
        for k, path in work.path.items():
            if key in path and (k in work.boxes or k.startswith("~")):
                w, h = (work.boxes[k].width, work.boxes[k].height) if k in work.boxes \
                    else (0.0, 0.0)
                cx, cy = turn(centre[k])
                xs += [cx - w / 2, cx + w / 2]
                ys += [cy - h / 2, cy + h / 2]
        for inner, (fx, fy, fw, fh, _, _) in frames.items():
            if graph.clusters[inner].parent == key:
                xs += [fx, fx + fw]
                ys += [fy, fy + fh]
        if not xs:
            continue
        x0, y0 = min(xs) - CLUSTER_PAD, min(ys) - CLUSTER_PAD - CLUSTER_TITLE
        width = max(xs) + CLUSTER_PAD - x0
        # as graphviz, a frame is at least as wide as its title (drawn 8 in, size 14)
        title = graph.clusters[key].title
        grow = max(0.0, measure(visible(title), TITLE_SIZE, False) + 2 * TITLE_INSET - width)
        frames[key] = (x0 - grow / 2, y0, width + grow, max(ys) + CLUSTER_PAD - y0,
                       title, _depth(graph, key))
    xs = [b.x - b.width / 2 for b in boxes] + [f[0] for f in frames.values()]
    ys = [b.y - b.height / 2 for b in boxes] + [f[1] for f in frames.values()]
    x_end = [b.x + b.width / 2 for b in boxes] + [f[0] + f[2] for f in frames.values()]
    y_end = [b.y + b.height / 2 for b in boxes] + [f[1] + f[3] for f in frames.values()]
    for commands, arrow in edges:
        for c in commands:
            for p in c[1:]:
                xs.append(p[0]), x_end.append(p[0]), ys.append(p[1]), y_end.append(p[1])
    dx, dy = MARGIN - min(xs, default=0.0), MARGIN - min(ys, default=0.0)

    def shift(p):
        return (p[0] + dx, p[1] + dy)

    for b in boxes:
        b.x, b.y = b.x + dx, b.y + dy
    clusters = [(f[0] + dx, f[1] + dy) + f[2:] for f in
                sorted(frames.values(), key=lambda f: f[5])]
    edges = [([(c[0],) + tuple(shift(p) for p in c[1:]) for c in commands],
              [shift(p) for p in arrow]) for commands, arrow in edges]
    return Layout(max(x_end, default=0.0) + dx + MARGIN, max(y_end, default=0.0) + dy + MARGIN,
                  boxes, clusters, edges)


def _depth(graph, key) -> int:
    depth = 0
    while graph.clusters[key].parent is not None:
        key = graph.clusters[key].parent
        depth += 1
    return depth
