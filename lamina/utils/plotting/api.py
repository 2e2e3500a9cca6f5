"""``plot_model`` and ``model_to_dot`` with Keras 3's signatures.

Unlike Keras, neither needs pydot nor graphviz: with graphviz's ``dot`` program installed
the picture is graphviz's (from the same DOT text Keras writes); without it Lamina lays the
graph out itself and writes SVG and DOT with no dependency, PNG/PDF through matplotlib
(``pip install lamina[plots]``). ``model_to_dot`` returns a ``pydot.Dot`` when pydot is
installed (as Keras does), else a :class:`DotGraph` with the same reading methods.
"""
from __future__ import annotations

import os

from .dot_text import DotGraph, cluster_attributes, graph_attributes
from .graph import extract
from .place import RANKDIRS, SPLINES
from .pydot_graph import to_pydot
from .render import render_bytes


def _check(function: str, model, rankdir, dpi, splines, kwargs) -> None:
    if not getattr(model, "built", False):
        raise ValueError(f"{function}: the model {getattr(model, 'name', model)!r} has not "
                         "yet been built. Build the model first by calling `build()` or by "
                         "calling the model on a batch of data.")
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError(f"{function}: argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"{function}: unrecognized keyword arguments: {kwargs}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"{function}: argument `rankdir` must be one of {list(RANKDIRS)} "
                         f"(\"TB\": top to bottom, \"LR\": left to right); received {rankdir!r}")
    if str(splines).lower() not in SPLINES:
        raise ValueError(f"{function}: argument `splines` must be one of "
                         f"{sorted(k for k in SPLINES if k)}; received {splines!r}")
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or dpi <= 0:
        raise ValueError(f"{function}: argument `dpi` must be a positive number; "
                         f"received {dpi!r}")


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho",
                 **kwargs):
    """The model's graph in graphviz's DOT form: a ``pydot.Dot`` (``pydot.Cluster`` with
    ``subgraph=True``) when pydot is installed, else a :class:`DotGraph` offering
    ``to_string()``, ``create(format=...)``, ``write(path, format=...)``, ``get_nodes()``,
    ``get_edges()`` and ``get_subgraphs()``.

    Args:
        model: a built model.
        show_shapes: bool; show each layer's input and output shapes (default False).
        show_dtype: bool; show each layer's dtype (default False).
        show_layer_names: bool; show layer names (default True).
        rankdir: ``"TB"`` (top to bottom, default), ``"LR"`` (left to right), ``"BT"``
            or ``"RL"``.
        expand_nested: bool; draw nested models' layers inside a cluster (default False).
        dpi: a positive number, the image resolution (default 200).
        subgraph: bool; return a cluster for embedding in another graph
            (default False).
        show_layer_activations: bool; show the activation of layers that have one
            (default False).
        show_trainable: bool; mark each layer trainable or frozen (default False).
        splines: graphviz's edge style, such as ``"ortho"`` (default), ``"line"``,
            ``"polyline"``, ``"curved"`` or ``"spline"``.
        **kwargs: only Keras's removed ``layer_range`` (an error); anything else raises
            ValueError.

    Returns:
        A ``pydot.Dot`` (or cluster), or Lamina's ``DotGraph`` without pydot.

    Raises:
        ValueError: an unbuilt model or a bad argument.
    """
    _check("model_to_dot", model, rankdir, dpi, splines, kwargs)
    graph = extract(model, show_shapes=show_shapes, show_dtype=show_dtype,
                    show_layer_names=show_layer_names, expand_nested=expand_nested,
                    show_layer_activations=show_layer_activations,
                    show_trainable=show_trainable, subgraph=subgraph)
    attributes = graph_attributes(rankdir, dpi, splines)
    cluster = f"cluster_{model.name}" if subgraph else None
    try:
        import pydot
    except ImportError:
        pydot = None
    if pydot is None:
        return DotGraph(graph, cluster_attributes(model.name) if subgraph else attributes,
                        cluster, dict(rankdir=rankdir, dpi=dpi, splines=splines))
    return to_pydot(pydot, graph, rankdir, dpi, splines, cluster)


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho",
               **kwargs):
    """Draw the model's graph into ``to_file``: ``.png``, ``.svg``, ``.pdf`` or ``.dot``
    (any format graphviz writes when it is installed; no extension means PNG). Returns an
    ``IPython.display`` image of a PNG, JPEG, GIF or SVG file when IPython is installed
    (a notebook shows it), else None.

    Args:
        model: a built model.
        to_file: the output path (default ``"model.png"``).
        show_shapes: bool; show each layer's input and output shapes (default False).
        show_dtype: bool; show each layer's dtype (default False).
        show_layer_names: bool; show layer names (default False).
        rankdir: ``"TB"`` (top to bottom, default), ``"LR"`` (left to right), ``"BT"``
            or ``"RL"``.
        expand_nested: bool; draw nested models' layers inside a cluster (default False).
        dpi: a positive number, the image resolution (default 200).
        show_layer_activations: bool; show the activation of layers that have one
            (default False).
        show_trainable: bool; mark each layer trainable or frozen (default False).
        splines: graphviz's edge style, such as ``"ortho"`` (default), ``"line"``,
            ``"polyline"``, ``"curved"`` or ``"spline"``.
        **kwargs: only Keras's removed ``layer_range`` (an error); anything else raises
            ValueError.

    Returns:
        An ``IPython.display`` image when IPython is installed, else None.

    Raises:
        ValueError: an unbuilt model or a bad argument.
    """
    _check("plot_model", model, rankdir, dpi, splines, kwargs)
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:].lower() or "png"
    graph = extract(model, show_shapes=show_shapes, show_dtype=show_dtype,
                    show_layer_names=show_layer_names, expand_nested=expand_nested,
                    show_layer_activations=show_layer_activations,
                    show_trainable=show_trainable)
    data = render_bytes(graph, extension, rankdir=rankdir, dpi=dpi, splines=splines)
    with open(to_file, "wb") as f:
        f.write(data)
    if extension not in ("png", "jpg", "jpeg", "gif", "svg"):
        return None
    try:
        from IPython import display
    except ImportError:
        return None
    if extension == "svg":
        return display.SVG(filename=to_file)
    return display.Image(filename=to_file, format=extension)
