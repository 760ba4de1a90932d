"""The benchmark's predicate floor measures what its docs say it measures.

``benchmarks/run.py`` reports, beside item 1, the cost of calling upstream's named
predicates alone (``predicate_floor``) and of the same calls with every predicate
returning at once (``AT_ONCE``).  Those rows are evidence for why the item-1 targets
are missed, so they must call the kit's real predicates, and the stand-ins must take
the same arguments (a stand-in with another arity would time another call).
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from stsedu.controller import stateful_set_utils as P

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("stsedu_benchmark_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positional_arity(fn) -> int:
    return sum(1 for p in inspect.signature(fn).parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def test_each_stand_in_replaces_a_real_predicate_of_the_same_arity(bench):
    names = set(vars(bench.AT_ONCE))
    assert names, "AT_ONCE is empty"
    for name in sorted(names):
        real = getattr(P, name, None)
        assert callable(real), f"stateful_set_utils has no predicate {name}"
        assert positional_arity(getattr(bench.AT_ONCE, name)) == positional_arity(real), name


def test_the_floor_calls_the_real_predicates_and_every_stand_in(bench, monkeypatch):
    c = bench.stable_cluster(3, claims=False)
    sts, pods, now = c.statefulset("web"), list(c.store.view("Pod", "default").values()), c.clock.now

    def counting(ns):
        calls: dict[str, int] = {}

        def wrap(name, fn):
            def counted(*args):
                calls[name] = calls.get(name, 0) + 1
                return fn(*args)
            return counted
        return calls, {name: wrap(name, getattr(ns, name)) for name in vars(bench.AT_ONCE)}

    real_calls, real_wrapped = counting(P)
    for name, fn in real_wrapped.items():
        monkeypatch.setattr(P, name, fn)
    bench.predicate_floor(sts, pods, now)
    monkeypatch.undo()
    stand_in_calls, stand_in_wrapped = counting(bench.AT_ONCE)
    for name, fn in stand_in_wrapped.items():
        monkeypatch.setattr(bench.AT_ONCE, name, fn)
    bench.predicate_floor(sts, pods, now, bench.AT_ONCE, bench._at_once_1)

    # every stand-in is used, and the two runs make the same calls per pod
    assert set(stand_in_calls) == set(real_wrapped)
    assert stand_in_calls == real_calls
    assert real_calls["is_running_and_ready"] == 2 * len(pods)  # computeReplicaStatus and processReplica
