"""Graphviz DOT text for a :class:`PlotGraph`, with Keras's graph, node and edge attributes,
and :class:`DotGraph`, what ``model_to_dot`` returns when pydot is not installed."""
from __future__ import annotations

import re

from .graph import PlotGraph

_PLAIN_ID = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")

NODE_ATTRIBUTES = {"fontname": "Helvetica", "border": "0", "margin": "0"}
EDGE_ATTRIBUTES = {"penwidth": "2"}


def quote(value) -> str:
    """A DOT ID: bare when it may be, an HTML string ``<...>`` as is, else quoted."""
    text = str(value)
    if _PLAIN_ID.match(text) or (text.startswith("<") and text.endswith(">")):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attributes(pairs: dict) -> str:
    return ", ".join(f"{k}={quote(v)}" for k, v in pairs.items())


def graph_attributes(rankdir: str, dpi, splines: str) -> dict:
    return {"rankdir": rankdir, "concentrate": "True", "dpi": str(dpi), "splines": splines}


def cluster_attributes(title: str) -> dict:
    return {"label": title, "labeljust": "l", "style": "dashed"}


def to_dot(graph: PlotGraph, attributes: dict, name: str = "G") -> str:
    """The DOT text of ``graph`` (``attributes``: the graph's own, e.g. rankdir)."""
    lines = [f"digraph {quote(name)} {{"]
    lines += [f"{k}={quote(v)};" for k, v in attributes.items()]
    lines.append("node [shape=record];")
    lines += _body(graph, None, 0)
    lines.append("}")
    return "\n".join(lines) + "\n"


def cluster_dot(graph: PlotGraph, key: str) -> str:
    """The DOT text of one cluster, a ``subgraph cluster_<model> {...}`` statement."""
    lines = [f"subgraph {quote(key)} {{"]
    title = graph.clusters[key].title
    lines += [f"  {k}={quote(v)};" for k, v in cluster_attributes(title).items()]
    lines += _body(graph, key, 1)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _body(graph: PlotGraph, cluster, indent) -> list:
    pad = "  " * indent
    out = []
    for node in graph.nodes:
        if (node.clusters[-1] if node.clusters else None) == cluster:
            pairs = {"label": node.label.html, **NODE_ATTRIBUTES}
            out.append(f"{pad}{quote(node.key)} [{_attributes(pairs)}];")
    for key, sub in graph.clusters.items():
        if sub.parent == cluster:
            out.append(f"{pad}subgraph {quote(key)} {{")
            out += [f"{pad}  {k}={quote(v)};" for k, v in
                    cluster_attributes(sub.title).items()]
            out += _body(graph, key, indent + 1)
            out.append(f"{pad}}}")
    out += [f"{pad}{quote(a)} -> {quote(b)} [{_attributes(EDGE_ATTRIBUTES)}];"
            for a, b, owner in graph.edges if owner == cluster]
    return out


class DotNode:
    """A node of a :class:`DotGraph` (pydot's ``Node`` methods that scripts read)."""

    def __init__(self, name: str, attributes: dict):
        self._name, self._attributes = name, attributes

    def get_name(self) -> str:
        return self._name

    def get(self, name: str):
        return self._attributes.get(name)

    def get_label(self):
        return self._attributes.get("label")

    def get_attributes(self) -> dict:
        return dict(self._attributes)


class DotEdge:
    """An edge of a :class:`DotGraph` (pydot's ``Edge`` methods that scripts read)."""

    def __init__(self, source: str, destination: str):
        self._source, self._destination = source, destination
        self._attributes = dict(EDGE_ATTRIBUTES)

    def get_source(self) -> str:
        return self._source

    def get_destination(self) -> str:
        return self._destination

    def get(self, name: str):
        return self._attributes.get(name)

    def get_attributes(self) -> dict:
        return dict(self._attributes)


class DotGraph:
    """``model_to_dot``'s result without pydot: the DOT text (``to_string``), pictures
    (``create``, ``write``, drawn by graphviz when its ``dot`` binary is installed, else by
    Lamina's own layout), and the nodes, edges and clusters as pydot names them
    (``get_nodes``, ``get_node``, ``get_edges``, ``get_edge``, ``get_subgraphs``).
    With ``subgraph=True`` it is one cluster (``get_name()`` is ``cluster_<model>``)."""

    def __init__(self, graph: PlotGraph, attributes: dict, cluster: str | None = None,
                 render_options: dict | None = None):
        self.graph = graph
        self._attributes = dict(attributes)
        self._cluster = cluster
        self._render = dict(render_options or {})

    # ---------------------------------------------------------------- pydot-like reading
    def get_name(self) -> str:
        return self._cluster or "G"

    def get(self, name: str):
        return self._attributes.get(name)

    def set(self, name: str, value) -> None:
        self._attributes[name] = value
        if name in ("rankdir", "dpi", "splines"):
            self._render[name] = value

    def get_attributes(self) -> dict:
        return dict(self._attributes)

    def _own(self, node) -> bool:
        return (node.clusters[-1] if node.clusters else None) == self._cluster

    def get_nodes(self) -> list:
        return [DotNode(n.key, {"label": n.label.html, **NODE_ATTRIBUTES})
                for n in self.graph.nodes if self._own(n)]

    def get_node(self, name: str) -> list:
        return [n for n in self.get_nodes() if n.get_name() == str(name)]

    def get_edges(self) -> list:
        return [DotEdge(a, b) for a, b, owner in self.graph.edges if owner == self._cluster]

    def get_edge(self, source, destination) -> list:
        return [e for e in self.get_edges()
                if (e.get_source(), e.get_destination()) == (str(source), str(destination))]

    def get_subgraphs(self) -> list:
        return [DotGraph(self.graph, cluster_attributes(c.title), key, self._render)
                for key, c in self.graph.clusters.items() if c.parent == self._cluster]

    # ---------------------------------------------------------------- text and pictures
    def to_string(self) -> str:
        if self._cluster is not None:
            return cluster_dot(self.graph, self._cluster)
        return to_dot(self.graph, self._attributes)

    def create(self, prog=None, format="ps", encoding=None) -> bytes:
        """The picture in ``format`` ("svg", "png", "pdf", "dot", ...) as bytes."""
        from .render import render_bytes   # render.py draws with this module's DOT
        return render_bytes(self.graph, format, **self._render)

    def write(self, path, prog=None, format="raw", encoding=None) -> bool:
        """Write the DOT text (``format="raw"``) or a picture in ``format`` to ``path``."""
        data = self.to_string().encode() if format == "raw" else self.create(format=format)
        with open(path, "wb") as f:
            f.write(data)
        return True

    def __str__(self) -> str:
        return self.to_string()
