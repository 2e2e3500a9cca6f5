"""Shape rules for ``RNN`` over explicit cells: one cell, a list of cells, or
``StackedRNNCells`` (the LSTM/GRU/SimpleRNN layers are in ``catalogue.py``).

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``, sequences only.
"""
from __future__ import annotations

from .catalogue import Choice, _units

CELLS = ["SimpleRNNCell", "LSTMCell", "GRUCell"]


def _cell(r):
    dropout = ""
    if r.random() < 0.2:        # per-step masks drawn once per call, in both modes
        dropout = f", dropout=0.25, recurrent_dropout=0.25, seed={r.randint(0, 9)}"
    return f"layers.{r.choice(CELLS)}({_units(r)}{dropout})"


def rnn_cell(r, s):
    if len(s) != 2:
        return None
    roll = r.random()
    if roll < 0.5:
        cell = _cell(r)
    elif roll < 0.75:
        cell = f"[{_cell(r)}, {_cell(r)}]"
    else:
        cell = f"layers.StackedRNNCells([{_cell(r)}, {_cell(r)}])"
    return Choice(f"layers.RNN({cell}, return_sequences={r.random() < 0.5}, "
                  f"go_backwards={r.random() < 0.2})")


RULES = [rnn_cell]
