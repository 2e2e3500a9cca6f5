"""The reason class of one Keras test's outcome on Lamina, read from its failure line."""
import re

INTERNAL = "uses Keras internals or another framework"
PASSED = "passed"
MESSAGE = "message differs"

_RULES = (
    # trainer_test picks Keras's backend Trainer class by name ("Invalid backend" else)
    (INTERNAL, re.compile(r"keras-internal|Invalid backend: lamina|"
                          r"needs (tensorflow|jax|torch|grain|tf_keras|flax|pandas|numpy)|"
                          r"No module named '(tensorflow|torch|jax|grain|flax|openvino|"
                          r"tf_keras)")),
    ("missing in Lamina", re.compile(r"missing-in-lamina")),
    (MESSAGE, re.compile(r"does not match|Regex pattern did not match")),
    ("no error raised", re.compile(r"not raised|DID NOT RAISE|DID NOT WARN")),
    ("numbers differ", re.compile(r"Not equal to tolerance|Arrays are not|Mismatched elements")),
    ("timeout", re.compile(r"^timeout|TestTookTooLong")),
    ("assertion", re.compile(r"^AssertionError")),
)


_BACKEND_SKIP = re.compile(r"Skipped: .*\b(jax|JAX|Jax|torch|Torch|tensorflow|TensorFlow)\b")


def _excluded(detail: str) -> bool:
    """A public Keras name Lamina leaves out by design (the API walk's EXCLUDED list)."""
    from tests.api.api_walk import EXCLUDED
    match = re.search(r"missing-in-lamina: (\S+)", detail)
    return bool(match) and match.group(1) in EXCLUDED


def reason(outcome: str, detail: str) -> str:
    if outcome == "passed":
        return PASSED
    if _excluded(detail):
        return INTERNAL
    if outcome == "skipped":
        # Keras's own skip of a backend-specific test ("JAX only", "requires `jax` as the
        # backend"): the test is about another framework, as on Keras's other backends
        if _BACKEND_SKIP.search(str(detail)):
            return INTERNAL
        return "skipped on Lamina"
    for name, pattern in _RULES:
        if pattern.search(detail):
            return name
    match = re.match(r"([\w.]+?)(?::|$)", detail)
    kind = match.group(1).rsplit(".", 1)[-1] if match else "error"
    return f"raises {kind}"
