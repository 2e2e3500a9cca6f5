"""Makes progbar_reference.json: the exact bytes Keras 3.15.1's Progbar and ProgbarLogger
write to a terminal for fixed clock readings. Run in a throwaway Keras environment:

    /path/to/keras-env/bin/python tests/utils/progbar_reference_make.py

The scenarios (progbar_scenarios.py) are shared with the test that replays them on Lamina.
"""
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402

from progbar_scenarios import SCENARIOS, run  # noqa: E402


def main():
    out = {name: run(keras, scenario) for name, scenario in SCENARIOS.items()}
    path = os.path.join(os.path.dirname(__file__), "progbar_reference.json")
    with open(path, "w") as f:
        json.dump({"keras": keras.__version__, "outputs": out}, f, indent=1,
                  ensure_ascii=True)
    print(path, len(out))


if __name__ == "__main__":
    main()
