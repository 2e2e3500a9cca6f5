"""Seeds: Keras's ``SeedGenerator``, the global seed, and how a ``seed`` argument becomes a
Philox (key, counter) pair.

Every draw is a pure function of a 128-bit key and a counter (see lamina/backend/rng.py).

- ``SeedGenerator(seed)`` with an int seed has the key ``(seed mod 2**64, 0)``; two
  generators with the same int seed draw the same values, as in Keras.
- ``SeedGenerator()`` (seed None) takes the global seed and a *stream* number of its own:
  key ``(global seed, stream)`` with streams 2, 3, ... handed out in creation order since the
  last ``set_seed``. So unseeded generators never share values, and rebuilding a model
  after ``set_seed(s)`` gives every generator the same key again.
- The key is the generator's identity: its draws depend only on its key and its own state,
  never on which other generators drew first.
- Each generator's ``state`` is an int64 scalar Variable (trainable=False): the counter of
  its next draw. A draw reads it (as an input tensor of the random op, so a compiled step can
  read it too) and then adds one.

A ``seed`` argument of a random function may be an int (the values of ``SeedGenerator(seed)``'s
first draw, every call: counter 0), a SeedGenerator (its next draw), or None (the next draw
of the global generator, key ``(global seed, 1)``).
"""
from __future__ import annotations

import itertools
import operator
import secrets

from ..core.tensor import Tensor
from ..core.variable import Variable
from ..backend import rng
from ..errors import ArgumentTypeError
from ..registry import register_builtin

# Stream 0 belongs to int seeds and stream 1 to the global generator; unseeded
# SeedGenerators take 2, 3, ...
_INT_SEED_STREAM = 0
_GLOBAL_STREAM = 1
_FIRST_FREE_STREAM = 2

_global_seed: int | None = None
_streams = itertools.count(_FIRST_FREE_STREAM)
_global_generator: "SeedGenerator | None" = None
_generator_names = itertools.count()


def check_seed(op_name: str, seed) -> int:
    """An int seed reduced to [0, 2**64), or ArgumentTypeError (a TypeError, and the
    ValueError Keras raises) naming the argument."""
    if isinstance(seed, bool):
        raise ArgumentTypeError(f"{op_name}: argument 'seed' must be an int; received "
                                f"{seed!r}")
    try:
        value = operator.index(seed)
    except TypeError:
        raise ArgumentTypeError(f"{op_name}: argument 'seed' must be an int; received "
                                f"{seed!r}") from None
    return value % rng.WORD


def global_seed() -> int:
    """The seed unseeded generators draw from: set by ``set_seed``, else from the OS."""
    global _global_seed
    if _global_seed is None:
        _global_seed = secrets.randbits(64)
    return _global_seed


def set_seed(seed: int) -> None:
    """Make Lamina's unseeded random draws reproducible (Keras's ``set_random_seed`` part).

    Resets the global generator (used by ``seed=None`` draws) and the stream numbers of
    unseeded ``SeedGenerator``s, so the same program after ``set_seed(s)`` draws the same
    values.
    """
    global _global_seed, _streams, _global_generator
    _global_seed = check_seed("set_seed", seed)
    _streams = itertools.count(_FIRST_FREE_STREAM)
    _global_generator = None


@register_builtin
class SeedGenerator:
    """A stream of random draws (Keras 3's ``keras.random.SeedGenerator``).

    Pass it as the ``seed`` of random functions: each draw uses the generator's key and the
    current value of ``state``, then advances ``state`` by one.

    Args:
        seed: an int (the key), or None to draw one from the global generator.
        name: the name of the generator and of its ``state`` variable's path.
        **kwargs: Keras's ``backend`` only (where the state variable lives); anything else
            is an error.

    Example:

    >>> gen = SeedGenerator(42)
    >>> a = lamina.random.uniform((2,), seed=gen)
    >>> b = lamina.random.uniform((2,), seed=gen)      # a different draw
    >>> c = lamina.random.uniform((2,), seed=42)       # equals a: counter 0 of key (42, 0)
    """

    _keras_module = "keras.random"          # its module in a config, as Keras writes it

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs) -> None:
        # Keras's only keyword is ``backend`` (where the state variable lives).
        backend = kwargs.pop("backend", None)
        if kwargs:
            raise ArgumentTypeError(f"SeedGenerator: Unrecognized keyword arguments "
                                    f"{sorted(kwargs)}; expected only 'backend'")
        if seed is None:
            self._initial_seed = None
            self._init_key(global_seed(), next(_streams), name, backend)
        else:
            self._initial_seed = seed
            self._init_key(check_seed("SeedGenerator", seed), _INT_SEED_STREAM, name,
                           backend)

    def _init_key(self, seed: int, stream: int, name, backend) -> None:
        self.seed = seed
        self.key = (seed, stream)
        self.name = name if name is not None else f"seed_generator_{next(_generator_names)}"
        self.state = Variable(0, dtype="int64", trainable=False, name=f"{self.name}/state",
                              backend=backend)

    @classmethod
    def _with_key(cls, seed: int, stream: int, name: str) -> "SeedGenerator":
        generator = cls.__new__(cls)
        generator._initial_seed = None
        generator._init_key(seed, stream, name, None)
        return generator

    def counter_for(self, backend) -> Tensor:
        """The counter tensor a draw on ``backend`` reads: ``state`` itself when it lives
        there (read when the op runs), else a copy of its current value."""
        if self.state.backend is backend:
            return self.state
        return self.state.to(backend)

    def advance(self) -> None:
        """Move on to the next counter (after a draw)."""
        self.state.assign_add(1)

    def next(self) -> Tensor:
        """Keras's ``SeedGenerator.next()``: the counter of this draw (a copy), then advance."""
        counter = self.state.value
        self.advance()
        return counter

    def get_config(self) -> dict:
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config: dict) -> "SeedGenerator":
        return cls(**config)

    def __repr__(self) -> str:
        return (f"<SeedGenerator '{self.name}' key={self.key} "
                f"counter={int(self.state.numpy())}>")


def global_generator() -> SeedGenerator:
    """The generator behind ``seed=None`` draws: key (global seed, 1)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = SeedGenerator._with_key(global_seed(), _GLOBAL_STREAM,
                                                    "global_seed_generator")
    return _global_generator


def draw_state(op_name: str, seed, backend):
    """``seed`` -> (key, counter tensor on ``backend``, generator to advance or None)."""
    if seed is None:
        seed = global_generator()
    if isinstance(seed, SeedGenerator):
        return seed.key, seed.counter_for(backend), seed
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise ArgumentTypeError(f"{op_name}: argument 'seed' must be an int, a "
                                f"lamina.random.SeedGenerator or None; received {seed!r}")
    key = (check_seed(op_name, seed), _INT_SEED_STREAM)
    return key, Tensor._wrap(backend.full((), 0, "int64"), backend), None
