"""The parts of the ``stsedu`` command (:mod:`stsedu.__main__` reads the command line and hands
each command to its part):

* :mod:`.scenario_run`: ``stsedu run`` and ``stsedu`` alone: a scenario run and printed step by step;
* :mod:`.trace_file`: ``stsedu run --trace FILE``: the file checked before the run, written safely after;
* :mod:`.teacher`: the teachers' commands ``exercise``, ``grade``, ``nbgrader`` and ``class``.

``import stsedu`` does not load them.
"""

EXIT_OK, EXIT_EXPECTATION_FAILED, EXIT_INVALID_SCENARIO, EXIT_OUTPUT_ERROR = 0, 1, 2, 3
"""The exit statuses of ``stsedu run`` (documented in docs/scenarios.md), which the teachers'
commands share for a failed run (1), bad input (2) and an output that cannot be written (3)."""
