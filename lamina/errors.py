"""Typed errors. Every message names the op or layer, the argument, what was expected and
what was received, so a user can act on it without reading a numpy traceback."""


class LaminaError(Exception):
    """Base class of Lamina's own errors."""


class ShapeError(LaminaError, ValueError):
    """An argument has the wrong shape or rank."""


class InputShapeError(ShapeError):
    """Data given to a model does not fit the shape of its ``Input``: the same in every
    mode, so a compiled step raises it rather than falling back to eager mode."""


class DTypeError(LaminaError, TypeError):
    """An argument has the wrong dtype."""


class DTypeArgumentError(DTypeError, ValueError):
    """A ``dtype`` argument names a dtype the function does not take. Also a ValueError,
    the type Keras raises for it, so code written against either catches it."""


class ArgumentTypeError(LaminaError, TypeError, ValueError):
    """An argument of a kind the function does not take (a seed that is not an int, an
    unknown keyword argument). Also a ValueError, the type Keras raises for it."""


class IndexRangeError(LaminaError, IndexError, ValueError):
    """An index or label is outside the range of the axis it selects from."""


class BackendError(LaminaError, RuntimeError):
    """Arrays of two backends were mixed, or a backend cannot be used here."""


class GradientError(LaminaError, RuntimeError):
    """A gradient was asked for in a way that cannot be answered."""


def describe_shape(shape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


class AssetError(LaminaError, ValueError):
    """An asset file an object saved (a lookup layer's vocabulary) is missing or malformed
    when it is loaded back; ``entry`` names the file within the object's asset folder."""

    def __init__(self, entry: str, reason: str):
        super().__init__(f"{entry}: {reason}")
        self.entry, self.reason = entry, reason


class WaitTimeoutError(LaminaError, TimeoutError):
    """A bounded wait -- on an input worker, a collective of the MPI world -- ran past its
    limit; the message names what was waited for, where, and the setting that bounds it."""


class WorkerError(LaminaError, RuntimeError):
    """An input worker (a PyDataset's thread or process) ended abruptly."""


class DistributedDataError(LaminaError, ValueError):
    """The processes of a DataParallel run were given data that cannot be split into the
    same steps on every process; the message names each process's rows or batches."""
