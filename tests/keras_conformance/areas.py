"""The areas of Keras 3.15.1's own tests that the conformance suite runs (folders under
``keras/src``), and the part that CI runs."""

AREAS = ("ops", "layers", "losses", "metrics", "optimizers", "models", "saving",
         "callbacks", "trainers", "activations", "initializers", "regularizers",
         "constraints", "random")

# The part CI runs (about a minute on 2 cores): the building blocks and losses.
CI_AREAS = ("losses", "activations", "regularizers", "constraints", "initializers")

# Left out of the default run: numpy_test.py holds 6,000 tests (mostly dtype grids of every
# op), two hours on Keras's JAX backend on 2 cores; the figures leave it out too.
# Run it on its own with --areas ops/numpy_test.py (after recording its baseline the same
# way: make_fixtures.py baseline ops/numpy_test.py).
LEFT_OUT = ("ops/numpy_test.py",)
