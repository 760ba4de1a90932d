"""The controller's tests notice a wrong controller (tools/mutation_check.py).

Each mutation there breaks one upstream rule in a copy of the controller; the
quick suite's controller tests must fail against that copy.  The full list runs
with ``python tools/mutation_check.py``; CI runs a few here.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))

import mutation_check  # noqa: E402


@pytest.mark.parametrize("mutation", mutation_check.MUTATIONS, ids=lambda m: m.name)
def test_every_mutation_still_applies_to_the_controller(mutation, tmp_path):
    """Each mutation's text occurs exactly once in today's controller (or the pod helper it calls), and
    applying it changes the file (a refactor that moves the rule must move the mutation with it)."""
    package = tmp_path / "stsedu"
    folder = mutation.file.split("/")[0]
    shutil.copytree(ROOT / "stsedu" / folder, package / folder)
    before = (package / mutation.file).read_text()
    mutation_check.apply(mutation, package)
    after = (package / mutation.file).read_text()
    assert after != before and mutation.new in after


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cap-400", "ordinal-range-inclusive"])
def test_the_controller_tests_catch_a_mutation(name):
    """The slow-start cap at 400 (it survived the suite before test_slow_start_batches_stop_growing_at_
    max_batch_size) and a ``<=`` for ``<`` in podInOrdinalRange: each makes the non-upstream controller
    tests fail."""
    mutation = next(m for m in mutation_check.MUTATIONS if m.name == name)
    caught, seconds, tail = mutation_check.run(mutation)
    assert caught, f"{name} survived ({mutation.rule}):\n{tail}"
