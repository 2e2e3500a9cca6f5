"""The crossentropies' numerics live with the ops (lamina/ops/crossentropy_numerics.py),
which the ``keras.ops`` crossentropies use too; the loss functions import them from here."""
from ..ops.crossentropy_numerics import (binary_crossentropy_from_probabilities,  # noqa: F401
                                         clip_probabilities, log_probabilities,
                                         normalized_probabilities,
                                         sigmoid_crossentropy_with_logits, stable_softplus)
