"""examples/vgg16_lego.py runs: VGG16 stacked from bricks equals the application, and its
first bricks with a new top learn the digits."""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_vgg16_lego_example():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, str(REPO / "examples" / "vgg16_lego.py")],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("stacked from bricks: 14,714,688 parameters, VGG16 base: 14,714,688; "
            "same layer names: True") in result.stdout
    assert "joined model agrees with base + top: True" in result.stdout
    accuracy = float(result.stdout.split("test accuracy")[1].split()[0])
    assert accuracy > 0.85
