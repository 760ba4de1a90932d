"""Does the non-upstream test suite notice when the controller is wrong?

Each mutation below changes one rule of the controller in a copy of the package
(the slow-start cap, a comparison, a dropped ``break`` ...).  None is equivalent to
the original: ``n_unavailable > max_u`` for ``>=`` in the maxUnavailable budget, for
one, is not listed, because with ``n_unavailable == max_u`` the budget left is 0 and
the same wait follows either way.  For each, the
controller's tests (the quick suite's files about the controller, without the
upstream oracle) run against the mutated copy; a mutation is *caught* when they
fail.  Every mutation must be caught: one that survives names a rule no
non-upstream test checks, and gets a test.

    python tools/mutation_check.py              # every mutation
    python tools/mutation_check.py --list       # their names
    python tools/mutation_check.py cap-400 ...  # only these

``tests/controller/upstream/test_mutation_check.py`` (marked ``slow``) runs a few of them in CI.
Exit status 0 when every mutation run was caught, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TESTS = (
    "tests/controller/stateful_set_control/test_api_errors.py",
    "tests/controller/upstream/test_perf_equivalence.py",   # the recorded walks: every decision of every sync
    "tests/controller/stateful_set_control/test_scaling.py",
    "tests/controller/stateful_set_control/test_updates.py",
    "tests/controller/stateful_set_control/test_max_unavailable.py",
    "tests/controller/upstream/test_upstream_rules.py",
    "tests/controller/stateful_pod_control/test_storage.py",
    "tests/controller/stateful_set_control/test_recreate.py",
)
"""The controller's tests of the quick suite (none needs Go)."""


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str
    """Path under ``stsedu`` (the controller's files, and ``api/pod_util.py`` that it calls)."""
    old: str
    """Text that occurs exactly once in *file*."""
    new: str
    rule: str
    """The upstream rule the mutation breaks."""


MUTATIONS = (
    Mutation("cap-400", "controller/stateful_set_control.py",
             "MAX_BATCH_SIZE = 500\n", "MAX_BATCH_SIZE = 400\n",
             "slowStartBatch: batches double up to MaxBatchSize = 500"),
    Mutation("ordinal-range-inclusive", "controller/stateful_set_utils.py",
             "start_ordinal_supported=start_ordinal_supported) + sts.spec.replicas - 1\n",
             "start_ordinal_supported=start_ordinal_supported) + sts.spec.replicas\n",
             "podInOrdinalRange: ordinals start .. getEndOrdinal = start + replicas - 1 (a - 1 dropped)"),
    Mutation("budget-no-break", "controller/stateful_set_control.py",
             "            if budget <= 0:\n                break\n", "            if budget <= 0:\n                pass\n",
             "updateStatefulSetAfterInvariantEstablished (Parallel): healthy old pods only within the budget"),
    Mutation("available-strict", "api/pod_util.py",
             "return since + min_ready_seconds <= now", "return since + min_ready_seconds < now",
             "isRunningAndAvailable / IsPodAvailable: available at lastTransitionTime + minReadySeconds"),
    Mutation("condemned-ascending", "controller/stateful_set_control.py",
             "condemned.sort(key=lambda pod: pod.ordinal, reverse=True)",
             "condemned.sort(key=lambda pod: pod.ordinal, reverse=False)",
             "updateStatefulSet: condemned pods are deleted highest ordinal first (descendingOrdinal)"),
    Mutation("partition-ignored", "controller/stateful_set_control.py",
             "    update_min = sts.spec.partition\n", "    update_min = 0\n",
             "updateStatefulSet: the rolling update stops at the partition"),
    Mutation("max-unavailable-ceil", "controller/stateful_set_utils.py",
             "n = math.floor(int(max_unavailable.rstrip", "n = math.ceil(int(max_unavailable.rstrip",
             "getStatefulSetMaxUnavailable: a percentage is rounded down"),
    Mutation("complete-without-ready", "controller/stateful_set_utils.py",
             "status.updated_replicas == n and status.ready_replicas == n and status.replicas == n",
             "status.updated_replicas == n and status.replicas == n",
             "completeUpdate: every replica updated and ready"),
    Mutation("terminating-counted", "controller/stateful_set_control.py",
             "        if is_created(pod) and not is_terminating(pod):\n            revision = get_pod_revision(pod)",
             "        if is_created(pod):\n            revision = get_pod_revision(pod)",
             "computeReplicaStatus: terminating pods count toward neither current nor updated"),
    Mutation("recreate-no-wait", "controller/stateful_set_control.py",
             "        if not all_old_pods_terminated:\n            return status,",
             "        if False:\n            return status,",
             "updateStatefulSet: Recreate creates nothing until recreateDeleteAndWait finds no old pod"),
    Mutation("create-despite-claim-error", "controller/stateful_pod_control.py",
             "        if (err := self.create_persistent_volume_claims(sts, pod, why, \"create-pvc\")) is not None:\n"
             "            self.record_pod_event(\"create\", sts, pod, err)\n            return err",
             "        if (err := self.create_persistent_volume_claims(sts, pod, why, \"create-pvc\")) and False:\n"
             "            self.record_pod_event(\"create\", sts, pod, err)\n            return err",
             "CreateStatefulPod: createPersistentVolumeClaims' error returns before the pod is created"),
)


def apply(mutation: Mutation, package: Path) -> None:
    """Apply *mutation* to the copy of the package at *package* (its ``stsedu`` folder)."""
    path = package / mutation.file
    text = path.read_text()
    n = text.count(mutation.old)
    if n != 1:
        raise SystemExit(f"mutation {mutation.name}: its text occurs {n} times in stsedu/{mutation.file} "
                         "(the controller changed: update the mutation)")
    path.write_text(text.replace(mutation.old, mutation.new))


_RUNNER = """import sys
sys.path.insert(0, sys.argv[1])
import stsedu
assert stsedu.__file__.startswith(sys.argv[1]), stsedu.__file__
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def run(mutation: Mutation, tests=TESTS, python: str = sys.executable) -> tuple[bool, float, str]:
    """(caught, seconds, last lines of pytest's output) for one mutation."""
    with tempfile.TemporaryDirectory(prefix=f"stsedu-mutant-{mutation.name}-") as tmp:
        shutil.copytree(ROOT / "stsedu", Path(tmp) / "stsedu",
                        ignore=shutil.ignore_patterns("__pycache__"))
        apply(mutation, Path(tmp) / "stsedu")
        start = time.monotonic()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run(
            [python, "-c", _RUNNER, tmp, "-x", "-q", "-p", "no:cacheprovider",
             "-m", "not browser and not slow and not upstream", *(str(ROOT / t) for t in tests)],
            cwd=tmp, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - start
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
    if proc.returncode not in (0, 1):  # an error, not a verdict: the check itself is broken
        raise SystemExit(f"mutation {mutation.name}: pytest exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.returncode == 1, seconds, tail


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    by_name = {m.name: m for m in MUTATIONS}
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:24} {m.rule}")
        return 0
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        parser.error(f"unknown mutation(s): {', '.join(unknown)} (see --list)")
    survived = []
    for m in [by_name[n] for n in args.names] or MUTATIONS:
        caught, seconds, tail = run(m)
        print(f"{'caught  ' if caught else 'SURVIVED'} {m.name:24} {seconds:6.1f} s  {m.rule}", flush=True)
        if not caught:
            survived.append(m.name)
            print("    " + tail.replace("\n", "\n    "))
    if survived:
        print(f"{len(survived)} mutation(s) survived: {', '.join(survived)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
