"""Activation layers."""
from .elu import ELU
from .leaky_relu import LeakyReLU
from .prelu import PReLU
from .relu import ReLU
from .softmax import Softmax

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax"]
