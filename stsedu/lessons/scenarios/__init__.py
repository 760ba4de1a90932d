"""Scenario files: teacher-written, replayable runs of a cluster.

A scenario is a YAML file (documented in ``docs/scenarios.md``): the objects
to apply, the cluster's options, and a list of steps that mirror the
:class:`~stsedu.Cluster` API (``sync``, ``run``, ``advance``, ``scale``,
``patch``, ``set_image``, ``delete_pod``, ``fail``, ``start``, ``set_ready``,
``rollout_undo``, ``delete``, ``inject_error``, ...), each optionally followed
by expectations (``expect:``) so that a scenario is also a test.

* :func:`load` reads a scenario from a path or, by name, from the library
  shipped with the package; :func:`library` lists that library.
* :meth:`Scenario.run` replays it on a fresh cluster and returns a
  :class:`RunResult` (``cluster, trace = scenario.run()``).
* Bad files raise :class:`ScenarioError` naming the file, the step and the
  field; expectations that do not hold raise :class:`ExpectationFailed`
  (or are collected, with ``strict=False``).

The package: :mod:`.format` (the file format: keys, records, reading a file
into steps), :mod:`.runner` (:class:`Scenario`, loading and replaying),
:mod:`.expectations` (checking a step's ``expect:``); the shipped scenarios
are in ``library/``.
"""

from __future__ import annotations

from .format import (DATA_DIR, LIBRARY_DIR, ExpectationFailed, Failure, RunResult, ScenarioError, Step,
                     StepRecord)
from .describe import format_value  # noqa: F401  (the CLI prints values as failures do)
from .runner import Scenario, from_dict, library, library_path, load, loads

__all__ = ["Scenario", "Step", "StepRecord", "RunResult", "Failure", "ScenarioError",
           "ExpectationFailed", "load", "loads", "library", "library_path", "LIBRARY_DIR"]
