"""The numpy backend's compiled ``elementwise_chain``: a program of unary/binary steps (see
``lamina/ops/elementwise_chain.py``) as one numba kernel (extra ``numba``).

The same programs the cupy backend compiles into CUDA (``cupy_chain.py``) become the body
of generated Python, one ``tK = ...`` line per step, that numba compiles for the chain's
dtype, so an optimizer's update runs in one pass over memory instead of a dozen numpy
calls. Two forms (:func:`run` picks): a flat loop over C-contiguous arrays of the output's
shape and scalars, which LLVM vectorizes (Adam's update of a 784x512 float32 kernel:
about 115 us, against about 5 ms for numpy's ops with fresh temporaries); and, for any
other broadcasting or strides, a ``numba.vectorize`` ufunc, which numpy's iterator drives.

Only steps whose result IEEE 754 rounds exactly are compiled (:data:`STEPS`): +, -, *, /,
sqrt, negation, absolute value, square, reciprocal, rsqrt (as ``1 / sqrt``, the numpy
kernel's two roundings), relu (``x * (x > 0)``), floor and ceil. Every one of them gives
the bits numpy's own loops give, so graph mode with compiled chains still equals eager
bit for bit. numba contracts nothing into fused multiply-adds without ``fastmath``, which
is never set. Transcendental steps (exp, tanh, ...) would differ from numpy's SIMD
implementations by an ulp; a chain with one is not fused (``compiles``).

Kernels compile (for explicit signatures) on first use of one (program, dtype, input kinds),
cached here per process and on disk:
the generated source is written once to ``<cache>/numba_chains/chain_<hash>.py`` and
imported, so numba's ``cache=True`` finds the machine code of an earlier process (the cache
directory is ``$LAMINA_CACHE_DIR`` or ``~/.cache/lamina``; where it cannot be written, or
cannot take numba's files, the kernel compiles in memory instead). Nothing imports numba until a kernel is asked for.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

STEPS = {
    # unary: {0} is the operand
    "negative": "-{0}",
    "abs": "abs({0})",
    "sqrt": "np.sqrt({0})",
    "rsqrt": "ONE / np.sqrt({0})",
    "square": "{0} * {0}",
    "reciprocal": "ONE / {0}",
    "relu": "{0} * T({0} > ZERO)",
    "floor": "np.floor({0})",
    "ceil": "np.ceil({0})",
    # binary: {0} and {1}
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
}
DTYPES = ("float32", "float64")

# A program (eager: in the process; in a plan: at its step) runs step by step (the same
# numbers) for its first calls and is compiled at the COMPILE_AFTER-th: a compile costs 0.1-0.5 s, which a chain run a few times (a test, a
# short predict) never earns back, while training runs its chains thousands of times.
COMPILE_AFTER = 8

# A plan's chain compiles on a worker thread instead (BoundChain): it starts at the chain's
# BACKGROUND_AFTER-th run, or at its first where the disk cache holds the kernel (a load
# takes milliseconds), and the plan runs the chain step by step until the kernel is ready.
# A first ``fit`` no longer pays the compile inside its steps, and one-off graphs (tests,
# a single predict) never start one.
BACKGROUND_AFTER = 3

_kernels: dict = {}
_calls: dict = {}
_pending: dict = {}
_digests: dict = {}         # kernel key -> the digest naming its source file (_on_disk)
_lock = threading.Lock()
_worker = None


def available() -> bool:
    """Whether numba can be imported (the ``numba`` extra is installed)."""
    return importlib.util.find_spec("numba") is not None


def compiles(program) -> bool:
    """Whether every step of ``program`` has an exactly rounded numba form."""
    return all(name in STEPS for name, _ in program)


def _operand(ref, names) -> str:
    kind, value = ref
    if kind == "x":
        return names[value]
    if kind == "t":
        return f"t{value}"
    return f"T({float(value)!r})"       # repr round-trips the double; T rounds it once


def python_source(program, n_inputs: int, dtype: str, kinds=None, cache: bool = True) -> str:
    """The module text whose ``chain`` runs ``program`` over ``n_inputs`` inputs.

    ``kinds`` None: a ufunc (any broadcasting, any strides). Otherwise one letter per
    input: ``"s"`` a scalar, ``"a"`` a flat array the size of the output, ``"o"`` such an
    array that is also the output (at most one). ``chain(*inputs)`` (with an ``"o"``) or
    ``chain(*inputs, y)`` is then a loop over the flat output that LLVM vectorizes. An
    output that is an input is written through that input's name: LLVM's runtime check
    that the output overlaps no input fails for ``y`` aliasing ``x3`` and the loop would
    run scalar (8x slower for Adam's update), while ``x3[i] = f(x3[i], ...)`` passes it.

    The loop stays on one core: numba's ``prange`` halved the time of Adam's update of a
    784x512 kernel on the quiet 2-core build machine (112 -> 63 us) but made it 60x slower
    as soon as other processes held a core (each call waits for a descheduled thread)."""
    if dtype not in DTYPES:
        raise ValueError(f"elementwise_chain: numba kernels take {DTYPES}; received {dtype!r}")
    names = [f"x{i}" if kinds is None or kinds[i] == "s" else f"x{i}[i]"
             for i in range(n_inputs)]
    target = f"x{kinds.index('o')}" if kinds is not None and "o" in kinds else "y"
    lines = []
    for k, (name, refs) in enumerate(program):
        template = STEPS.get(name)
        if template is None:
            raise ValueError(f"elementwise_chain: no exactly rounded numba form for step {k} "
                             f"({name!r}); compiled steps: {sorted(STEPS)}")
        lines.append(f"t{k} = {template.format(*(_operand(ref, names) for ref in refs))}")
    args = ", ".join(f"x{i}" for i in range(n_inputs))
    header = [f"# elementwise_chain kernel generated by lamina.backend.numba_chain ({dtype})",
              "import numpy as np", "import numba", f"T = np.{dtype}", "ONE = T(1.0)",
              "ZERO = T(0.0)", "", ""]
    last = f"t{len(program) - 1}"
    if kinds is None:
        signature = f"{dtype}({', '.join([dtype] * n_inputs)})"
        return "\n".join([*header, f"@numba.vectorize([{signature!r}], cache={cache})",
                          f"def chain({args}):", *(f"    {line}" for line in lines),
                          f"    return {last}", ""])
    array = f"{dtype}[::1]"
    types = [dtype if kind == "s" else array for kind in kinds]
    signature = f"void({', '.join(types + ([array] if target == 'y' else []))})"
    return "\n".join([*header,
                      f"@numba.njit({signature!r}, cache={cache}, error_model='numpy')",
                      f"def chain({args}{', y' if target == 'y' else ''}):",
                      f"    for i in range({target}.shape[0]):",
                      *(f"        {line}" for line in lines), f"        {target}[i] = {last}",
                      ""])


def kernel(program, n_inputs: int, dtype: str, kinds=None):
    """The compiled kernel of :func:`python_source`'s arguments (cached)."""
    key = (program, n_inputs, dtype, kinds)
    compiled = _kernels.get(key)
    if compiled is None:
        compiled = _kernels[key] = _load(program, n_inputs, dtype, kinds)
    return compiled


def _compile_in_background(key) -> None:
    """Start compiling (or loading) ``key``'s kernel on the worker thread, once."""
    global _worker
    with _lock:
        if key in _kernels or key in _pending:
            return
        if _worker is None:
            _worker = ThreadPoolExecutor(1, thread_name_prefix="numba-chains")

        def build():
            try:
                kernel(*key)
            finally:
                with _lock:
                    _pending.pop(key, None)
        _pending[key] = _worker.submit(build)


def wait_for_compiles(timeout: float | None = None) -> None:
    """Block until the kernels compiling in the background are ready (tests, benchmarks)."""
    with _lock:
        futures = list(_pending.values())
    for future in futures:
        future.result(timeout)


def _on_disk(key) -> bool:
    digest = _digests.get(key)
    if digest is None:      # the source is a function of the key: hash it once per process
        source = python_source(*key)
        digest = _digests[key] = hashlib.sha256(source.encode()).hexdigest()[:24]
    return os.path.exists(os.path.join(cache_directory(), f"chain_{digest}.py"))


def cache_directory() -> str:
    root = os.environ.get("LAMINA_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "lamina")
    return os.path.join(root, "numba_chains")


def _load(program, n_inputs: int, dtype: str, kinds):
    source = python_source(program, n_inputs, dtype, kinds)
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    try:
        path = _written(source, digest)
        name = f"lamina_numba_chain_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module      # numba's cache finds the module by name
        spec.loader.exec_module(module)  # compiles (signatures given) and saves
        return module.chain
    except OSError:                     # no writable cache (or a full disk, a file size
        namespace: dict = {}            # limit): compile in memory only
        exec(compile(python_source(program, n_inputs, dtype, kinds, cache=False),
                     "<numba_chain>", "exec"), namespace)
        return namespace["chain"]


def _written(source: str, digest: str) -> str:
    """The path of the cache file holding ``source`` (written atomically if missing)."""
    directory = cache_directory()
    path = os.path.join(directory, f"chain_{digest}.py")
    if os.path.exists(path):
        return path
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)           # concurrent writers write the same text
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def run(program, inputs, out=None):
    """``program`` over numpy ``inputs`` (one dtype of :data:`DTYPES`, steps that
    :func:`compiles`) into ``out`` (see :func:`_compiled`); None (nothing computed) for
    the program's first ``COMPILE_AFTER - 1`` calls in this process, which the caller runs
    step by step. Eager calls come here; a plan binds a :class:`BoundChain` instead."""
    key = (program, inputs[0].dtype.name)
    calls = _calls.get(key, 0)
    if calls < COMPILE_AFTER - 1:
        _calls[key] = calls + 1
        return None
    return _compiled(program, inputs, out, {})


class BoundChain:
    """One step of a plan that runs ``program``: the program and its dtype were checked
    when the plan was bound, and the call count and the kernel of each input layout are
    kept here, so a call neither hashes the program nor scans its steps. Until its kernel
    is ready (compiled on the worker thread: see BACKGROUND_AFTER) a call runs
    ``step_by_step(inputs, out)``, with the same numbers."""

    def __init__(self, program, out, step_by_step):
        self.program, self.out, self.step_by_step = program, out, step_by_step
        self.calls = 0
        self.kernels: dict = {}

    def __call__(self, *inputs):
        self.calls += 1
        result = _compiled(self.program, inputs, self.out, self.kernels,
                           background=self.calls)
        if result is _NOT_READY:
            return self.step_by_step(inputs, self.out)
        return result


_NOT_READY = object()


def _compiled(program, inputs, out, kernels: dict, background: int = 0):
    """The compiled run: a flat loop where every input is a scalar or a writable
    C-contiguous array of the output's shape and ``out`` is one of them or overlaps none,
    the ufunc otherwise (numpy buffers overlapping operands). ``kernels`` caches the
    kernel per input layout for the caller. ``background``: the caller's call count; a
    kernel not ready yet is then compiled on the worker thread and _NOT_READY returned."""
    import numpy
    if out is None:
        shape = numpy.broadcast_shapes(*(a.shape for a in inputs))
    elif out.flags.c_contiguous:
        shape = out.shape
    else:
        shape = None
    args, kinds = [], []
    for a in inputs if shape is not None else ():
        if a is out and "o" not in kinds:
            kinds.append("o")
        elif out is not None and numpy.may_share_memory(a, out):
            break                       # overlaps the output otherwise: numpy buffers it
        elif a.size == 1:
            args.append(a.reshape(-1)[0])
            kinds.append("s")
            continue
        elif a.shape == shape and a.flags.c_contiguous and a.flags.writeable:
            kinds.append("a")           # (a read-only array is another numba type)
        else:
            break
        args.append(a.reshape(-1))
    layout = tuple(kinds) if len(kinds) == len(inputs) else None
    chain = kernels.get(layout)
    if chain is None:
        key = (program, len(inputs), inputs[0].dtype.name, layout)
        if background:
            chain = _kernels.get(key)
            if chain is None:
                if background >= BACKGROUND_AFTER or (background == 1 and _on_disk(key)):
                    _compile_in_background(key)
                return _NOT_READY
            kernels[layout] = chain
        else:
            chain = kernels[layout] = kernel(*key)
    if layout is None:
        return chain(*inputs) if out is None else chain(*inputs, out=out)
    if "o" in layout:
        chain(*args)
        return out
    if out is None:
        out = numpy.empty(shape, inputs[0].dtype)
    chain(*args, out.reshape(-1))
    return out
