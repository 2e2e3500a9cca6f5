"""``model_to_dot``'s ``pydot.Dot`` (pydot installed): the nodes, clusters and edges of a
:class:`PlotGraph` with the attributes Keras 3 gives them."""
from __future__ import annotations

from .dot_text import EDGE_ATTRIBUTES, NODE_ATTRIBUTES, cluster_attributes


def to_pydot(pydot, graph, rankdir, dpi, splines, cluster=None):
    if cluster is not None:
        return _fill(pydot, graph, _cluster(pydot, graph, cluster), cluster)
    dot = pydot.Dot()
    dot.set("rankdir", rankdir)
    dot.set("concentrate", True)
    dot.set("dpi", dpi)
    dot.set("splines", splines)
    dot.set_node_defaults(shape="record")
    return _fill(pydot, graph, dot, None)


def _cluster(pydot, graph, key):
    title = graph.clusters[key].title
    sub = pydot.Cluster(style="dashed", graph_name=title)
    for name, value in cluster_attributes(title).items():
        if name != "style":
            sub.set(name, value)
    return sub


def _fill(pydot, graph, dot, cluster):
    for node in graph.nodes:
        if (node.clusters[-1] if node.clusters else None) == cluster:
            item = pydot.Node(node.key, label=node.label.html)
            for name, value in NODE_ATTRIBUTES.items():
                item.set(name, value)
            dot.add_node(item)
    for key, sub in graph.clusters.items():
        if sub.parent == cluster:
            dot.add_subgraph(_fill(pydot, graph, _cluster(pydot, graph, key), key))
    for a, b, owner in graph.edges:
        if owner == cluster:
            edge = pydot.Edge(a, b)
            for name, value in EDGE_ATTRIBUTES.items():
                edge.set(name, value)
            dot.add_edge(edge)
    return dot
