"""Pictures of models: ``plot_model`` / ``model_to_dot`` (graph extraction in graph.py,
labels in labels.py, DOT text in dot_text.py, layout in layout.py/place.py with text measured
in DejaVu Sans by font_metrics.py, SVG in svg.py, PNG/PDF through matplotlib in raster.py,
graphviz's SVG sized for dpi by svg_size.py)."""
from .api import model_to_dot, plot_model
from .dot_text import DotGraph

__all__ = ["plot_model", "model_to_dot", "DotGraph"]
