"""Issue 24 item 6: the progress bar writes, on a terminal, the very bytes Keras 3.15.1
writes for the same clock readings (progbar_reference.json, made by
progbar_reference_make.py in a Keras environment), whatever size the terminal reports;
piped, only the final lines, without control codes."""
import io
import json
import os
import sys

import pytest

import lamina

from .progbar_scenarios import SCENARIOS, Clock, run

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "progbar_reference.json")) as f:
    REFERENCE = json.load(f)["outputs"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_terminal_output_is_keras_s_byte_for_byte(name):
    assert run(lamina, SCENARIOS[name]) == REFERENCE[name]


def test_a_terminal_that_reports_no_size_still_animates(monkeypatch):
    monkeypatch.setattr(os, "get_terminal_size", lambda *a: os.terminal_size((0, 0)))
    out = run(lamina, SCENARIOS["fit_v1_3_epochs"])
    assert out.count("\r") == 9 and out == REFERENCE["fit_v1_3_epochs"]


class Pipe(io.StringIO):
    def isatty(self):
        return False


def test_piped_output_has_only_the_final_lines_and_no_control_codes(monkeypatch):
    monkeypatch.setattr(sys, "stdout", Pipe())
    import time
    monkeypatch.setattr(time, "time", Clock(0.03))
    from .progbar_scenarios import fit
    fit(lamina, verbose=1, epochs=2, steps=4)
    out = sys.stdout.getvalue()
    line = ("4/4 ━━━━━━━━━━━━━━━━━━━━ 0s 40ms/step - loss: 0.1000 - accuracy: 0.5900 - "
            "val_loss: 0.2500 - val_accuracy: 4.0000e-04\n")
    assert out == "Epoch 1/2\n" + line + "Epoch 2/2\n" + line
