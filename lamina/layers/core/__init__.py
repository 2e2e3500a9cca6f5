"""Core layers."""
from .activation import Activation
from .dense import Dense
from .einsum_dense import EinsumDense
from .embedding import Embedding
from .identity import Identity
from .input_layer import Input, InputLayer
from .lambda_layer import Lambda
from .masking import Masking
from .pipeline import Pipeline
from .reversible_embedding import ReversibleEmbedding
from .wrapper import Wrapper

__all__ = ["Activation", "Dense", "EinsumDense", "Embedding", "Identity", "Input", "InputLayer",
           "Lambda", "Masking", "ReversibleEmbedding", "Wrapper", "Pipeline"]
