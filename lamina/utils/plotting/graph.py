"""What ``plot_model`` draws: a model's boxes, the clusters of nested models and the edges.

The walk follows Keras 3's ``model_to_dot``: a Sequential model is its layers in a chain
(no input box), a functional model is its Input layers, layer calls and op steps (``x + y``
between layers) connected by the tensors between them, and any other model is one box.
With ``expand_nested`` a nested functional or Sequential model becomes a cluster whose
boxes are wired to the outer ones: an edge into the model goes to its Input box (the first
layer of a Sequential), an edge out of it leaves from the box that makes that output.
Node keys are ``str(id(...))`` of the layer (of the op node for an op step), as Keras's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .labels import Label, make_label, visible
from ...models.functional import Functional
from ...models.sequential import Sequential


@dataclass
class PlotNode:
    key: str
    label: Label
    clusters: tuple = ()          # the keys of the clusters it is in, outermost first


@dataclass
class PlotCluster:
    key: str                      # "cluster_<model name>", as pydot names a Cluster
    title: str
    parent: str | None


@dataclass
class PlotGraph:
    nodes: list = field(default_factory=list)
    clusters: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)    # (source, destination, cluster or None)

    def add_edge(self, source: str, destination: str, owner: str | None = None) -> None:
        """An edge drawn by the model of cluster ``owner`` (None: the outer model)."""
        if (source, destination, owner) not in self.edges:
            self.edges.append((source, destination, owner))

    def pairs(self) -> list:
        return list(dict.fromkeys((a, b) for a, b, _ in self.edges))


class OpBox:
    """An op applied between layers, drawn as Keras draws its operation objects."""

    def __init__(self, node):
        self.node = node
        self.name = node.op.name
        self.class_name = type(node.op).__name__
        inputs = [x for x in node.inputs if hasattr(x, "shape") and hasattr(x, "history")]
        self.inputs = inputs[0] if len(inputs) == 1 else inputs
        outputs = list(node.outputs)
        self.outputs = outputs[0] if len(outputs) == 1 else outputs


def is_graph_model(item) -> bool:
    return isinstance(item, (Functional, Sequential))


class _Walk:
    def __init__(self, options: dict, expand_nested: bool):
        self.options = options
        self.expand_nested = expand_nested
        self.graph = PlotGraph()
        self.ops: dict = {}

    # ---------------------------------------------------------------- items
    def op_box(self, node) -> OpBox:
        if id(node) not in self.ops:
            self.ops[id(node)] = OpBox(node)
        return self.ops[id(node)]

    def key(self, item) -> str:
        return str(id(item.node)) if isinstance(item, OpBox) else str(id(item))

    def producer(self, tensor):
        """(item, output index) that made ``tensor``; None for a constant."""
        if tensor.history is not None:
            return tensor.history[0], tensor.history[2]
        if tensor.node is not None:
            return self.op_box(tensor.node), tensor.index
        return None

    def items(self, model) -> list:
        if isinstance(model, Sequential):
            return list(model.layers)
        items = [x.history[0] for x in model.inputs]
        seen = {id(x) for x in items}
        for step in model._steps:
            item = step.layer if hasattr(step, "layer") else self.op_box(step.node)
            if id(item) not in seen:
                seen.add(id(item))
                items.append(item)
        return items

    # ---------------------------------------------------------------- nesting
    def source(self, item, index: int):
        """The box that makes output ``index`` of ``item`` (inside nested models)."""
        while is_graph_model(item):
            found = self.producer(item.outputs[index])
            if found is None:
                break
            item, index = found
        return item

    def destination(self, item, index: int):
        """The box that receives input ``index`` of ``item`` (inside nested models)."""
        while is_graph_model(item):
            if isinstance(item, Sequential):
                item = item.layers[0]
            else:
                item = item.inputs[index].history[0]
        return item

    def connect(self, clusters, source, destination, output_index=0, input_index=0):
        if self.expand_nested:
            source = self.source(source, output_index)
            destination = self.destination(destination, input_index)
        self.graph.add_edge(self.key(source), self.key(destination),
                            clusters[-1] if clusters else None)

    # ---------------------------------------------------------------- walk
    def walk(self, model, clusters: tuple = ()) -> None:
        if not is_graph_model(model):
            self.add_box(model, clusters)
            return
        items = self.items(model)
        for item in items:
            if self.expand_nested and is_graph_model(item):
                key = f"cluster_{visible(item.name)}"
                parent = clusters[-1] if clusters else None
                self.graph.clusters[key] = PlotCluster(key, visible(item.name), parent)
                self.walk(item, clusters + (key,))
            else:
                self.add_box(item, clusters)
        if isinstance(model, Sequential):
            for before, after in zip(items, items[1:]):
                self.connect(clusters, before, after)
            return
        for step in model._steps:
            item = step.layer if hasattr(step, "layer") else self.op_box(step.node)
            for input_index, tensor in enumerate(step.input_tensors):
                found = self.producer(tensor)
                if found is not None:
                    self.connect(clusters, found[0], item, found[1], input_index)

    def add_box(self, item, clusters: tuple) -> None:
        self.graph.nodes.append(PlotNode(self.key(item), make_label(item, **self.options),
                                         clusters))


def extract(model, *, show_shapes, show_dtype, show_layer_names, expand_nested,
            show_layer_activations, show_trainable, subgraph=False) -> PlotGraph:
    """The boxes, clusters and edges of ``model``'s picture (``subgraph``: all of it in
    one cluster named for the model)."""
    options = dict(show_layer_names=show_layer_names,
                   show_layer_activations=show_layer_activations, show_dtype=show_dtype,
                   show_shapes=show_shapes, show_trainable=show_trainable)
    walk = _Walk(options, expand_nested)
    clusters = ()
    if subgraph:
        key = f"cluster_{visible(model.name)}"
        walk.graph.clusters[key] = PlotCluster(key, visible(model.name), None)
        clusters = (key,)
    walk.walk(model, clusters)
    return walk.graph


__all__ = ["PlotGraph", "PlotNode", "PlotCluster", "extract"]
