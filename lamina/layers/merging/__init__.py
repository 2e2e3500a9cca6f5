"""Merging layers (each takes a list of tensors) and Keras's lowercase helpers
(``add([a, b])`` is ``Add()([a, b])``)."""
from .add import Add, add
from .average import Average, average
from .concatenate import Concatenate, concatenate
from .dot import Dot, dot
from .maximum import Maximum, maximum
from .minimum import Minimum, minimum
from .multiply import Multiply, multiply
from .subtract import Subtract, subtract

__all__ = ["Add", "Average", "Concatenate", "Dot", "Maximum", "Minimum", "Multiply",
           "Subtract", "add", "average", "concatenate", "dot", "maximum", "minimum",
           "multiply", "subtract"]
