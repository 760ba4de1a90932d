"""The terminal entry point: `python -m stsedu`, `stsedu run`, `stsedu list`, `stsedu show`."""

from __future__ import annotations

import io
import subprocess
import sys
import tomllib
from importlib import import_module
from pathlib import Path

import pandas as pd
import pytest

import stsedu
from stsedu import scenarios
from stsedu.__main__ import main

ROOT = Path(__file__).resolve().parent.parent


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_no_arguments_runs_the_web_example_to_stability():
    """`stsedu` alone: web.yaml in auto mode until stable, each sync's decisions, watch lines, kubectl get."""
    code, text = cli()
    assert code == 0
    # each pod is created in its own sync, in order, and the last sync has nothing to do
    creates = [line.split()[1] for line in text.splitlines() if line.strip().startswith("create ")]
    assert creates == ["web-0", "web-1", "web-2"]
    assert "wait            web-0           not-available" in text
    assert "(nothing to do)" in text
    # kubectl get pods -w lines: web-0 appears not ready, web-2 ends Running and Ready
    lines = [line.split() for line in text.splitlines()]
    assert any("web-0" in t and "0/1" in t for t in lines)
    assert any("web-2" in t and "1/1" in t and "Running" in t for t in lines)
    # final kubectl get sts / pods / pvc
    after = text.split("$ kubectl get sts", 1)[1]
    sts, pods, pvc = (part.strip().split("\n\n")[0].splitlines() for part in
                      after.replace("$ kubectl get pvc", "$ kubectl get pods").split("$ kubectl get pods"))
    assert sts[0].split()[:2] == ["NAME", "READY"] and sts[1].split()[:2] == ["web", "3/3"]
    assert [line.split()[:3] for line in pods[1:]] == [[f"web-{i}", "1/1", "Running"] for i in range(3)]
    assert [line.split()[0] for line in pvc[1:]] == ["www-web-0", "www-web-1", "www-web-2"]
    assert all({"Bound", "1Gi", "RWO"} <= set(line.split()) for line in pvc[1:])
    assert text.rstrip().endswith("expectations met")


def test_python_dash_m_stsedu_runs():
    """`python -m stsedu` is the same program (run as a real process once)."""
    proc = subprocess.run([sys.executable, "-m", "stsedu"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "scenario first-statefulset" in proc.stdout and "$ kubectl get pvc" in proc.stdout


def test_console_script_points_at_main():
    """pyproject's `stsedu` console script names stsedu.__main__:main."""
    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["stsedu"]
    module, func = target.split(":")
    assert getattr(import_module(module), func) is main


def test_run_prints_steps_syncs_and_expectations():
    code, text = cli("run", "ordered-scale-up")
    assert code == 0
    assert "-- step 1: sync web" in text
    assert "-- step 15: scale web to 5 replicas" in text
    assert "expect ok: pods, status, decisions" in text
    assert "23 steps, 13 syncs" in text


def test_failing_expectation_exits_1_and_says_where(tmp_path):
    """A wrong expectation: exit status 1, the step and what differed, printed inline and in the summary."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(scenarios.load("first-statefulset").to_text().replace("{replicas: 3,", "{replicas: 4,"))
    code, text = cli("run", str(bad))
    assert code == 1
    assert "expect FAILED expect.status.replicas: expected 4, got 3" in text
    assert f"{bad}: step 1 (run): expect.status.replicas: expected 4, got 3" in text
    assert "1 expectation(s) FAILED" in text


def test_invalid_scenario_exits_2_with_the_message(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("objects: [stsedu:web.yaml]\nsteps:\n  - scale: {replicas: lots}\n")
    code, text = cli("run", str(bad))
    assert code == 2 and text == ""
    assert capsys.readouterr().err.strip() == f"error: {bad}: step 1 (scale): replicas: must be an integer, not a string"


def test_trace_file_loads_back_as_the_python_run(tmp_path):
    """`--trace run.jsonl` writes the trace; loading it gives the DataFrames a Python run of the scenario gives."""
    path = tmp_path / "run.jsonl"
    code, text = cli("run", "partition-canary", "--trace", str(path), "--quiet")
    assert code == 0 and f"trace written to {path}" in text
    saved = stsedu.Trace.load(path)
    _, trace = scenarios.load("partition-canary").run()
    for name in ("decisions", "pods", "status", "events", "syncs"):
        pd.testing.assert_frame_equal(getattr(saved, name)(), getattr(trace, name)())
    assert saved.meta["scenario"] == "partition-canary"


def test_quiet_prints_no_syncs_or_watch_lines():
    code, text = cli("run", "partition-canary", "-q")
    assert code == 0
    assert "sync 1 at" not in text and "ContainerCreating" not in text and "kubectl get" not in text
    assert "expect ok: pods, status, decisions, rollout_status, revisions" in text


def test_watch_lines_give_a_pods_age_as_kubectl_does(tmp_path):
    """The watch lines' AGE is kubectl's (apimachinery duration.HumanDuration: hours and minutes
    from 3 h to 8 h): a pod deleted 12,003 s after it was made is 3h20m old, not 3h."""
    long = tmp_path / "long.yaml"
    long.write_text("objects: [stsedu:web.yaml]\nsteps:\n  - scale: {replicas: 1}\n  - run: {}\n"
                    "  - advance: 12000\n  - delete_pod: {pod: web-0}\n")
    code, text = cli("run", str(long))
    assert code == 0
    step4 = text.split("-- step 4: delete pod web-0")[1].split("$ kubectl get sts")[0]
    watched = [line.split() for line in step4.splitlines() if line.split()[:1] == ["web-0"]]
    assert [(w[2], w[-1]) for w in watched] == [("Terminating", "3h20m")] * 2


def test_list_and_show():
    code, text = cli("list")
    assert code == 0
    names = [line.split()[0] for line in text.splitlines()[: len(scenarios.library())]]
    assert names == list(scenarios.library()["name"])
    code, text = cli("show", "pvc-retention")
    assert code == 0
    assert scenarios.loads(text, base=scenarios.LIBRARY_DIR, default_name="pvc-retention").steps == \
        scenarios.load("pvc-retention").steps


def test_unknown_scenario_name(capsys):
    code, _ = cli("run", "ordered-scaleup")
    assert code == 2
    assert "did you mean 'ordered-scale-up'?" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--version"]])
def test_version(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"stsedu {stsedu.__version__}"


def test_refused_step_exits_2_naming_the_step(tmp_path, capsys):
    """A step the cluster refuses (and that did not expect an error) stops the run: exit 2, the step named."""
    bad = tmp_path / "refused.yaml"
    bad.write_text("cluster: {kubelet: manual}\nobjects: [stsedu:web.yaml]\nsteps:\n  - sync: {}\n"
                   "  - scale: {replicas: -1}\n")
    code, text = cli("run", str(bad))
    assert code == 2 and "-- step 1: sync web" in text
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: step 2 (scale): ValidationError: ") and "spec.replicas" in err
