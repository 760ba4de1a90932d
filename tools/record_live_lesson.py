"""Record the live lesson that ships with the kit (notebook 17 shows it where no control plane runs).

    python tools/record_live_lesson.py [SCENARIO]      # default: first-statefulset

Starts a local control plane (``stsedu live build`` first), plays the scenario on it and on
the kit, and writes ``stsedu/data/live/<scenario>.json`` and ``<scenario>.trace.jsonl``.
"""

from __future__ import annotations

import sys

from stsedu.live.controlplane import ControlPlane
from stsedu.live.lesson import STORED, run_both
from stsedu.live.runner import LiveSession


def main(name: str = "first-statefulset") -> None:
    with ControlPlane() as cp, LiveSession(str(cp.kubeconfig)) as session:
        lesson = run_both(name, session)
    print(lesson.agreement().to_string())
    print("written:", lesson.save(STORED))


if __name__ == "__main__":
    main(*sys.argv[1:2])
