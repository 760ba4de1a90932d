"""Trace.save / Trace.load: a saved trace loads back with the same DataFrames and metadata."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import stsedu
from helpers import WEB_YAML

FRAMES = ("decisions", "pods", "status", "events", "syncs", "queue")


@pytest.fixture(scope="module")
def busy_trace() -> stsedu.Trace:
    """A trace with every kind of row: jittered auto run, scale down, update, a failed request, an orphan delete."""
    c = stsedu.Cluster(seed=5, stages={"jitter": 1.5})
    c.apply(WEB_YAML)
    c.run("web")
    c.scale("web", 2)
    c.set_image("web", "nginx:2")
    c.inject_error("create", "Pod")
    c.run("web")
    c.inject_error("create", "Pod")
    c.scale("web", 3)
    c.run()  # the whole controller: the queue table gets a rate-limited requeue
    c.delete("web", cascade="orphan")
    return c.trace


def assert_same(a: stsedu.Trace, b: stsedu.Trace) -> None:
    for name in FRAMES:
        pd.testing.assert_frame_equal(getattr(a, name)(), getattr(b, name)(), obj=name)
    assert a.meta == b.meta
    assert (a.sync, a.time) == (b.sync, b.time)


def test_jsonl_round_trip_gives_the_same_frames(busy_trace, tmp_path):
    """Saving as JSON lines and loading back gives equal DataFrames (values and dtypes) and metadata."""
    assert busy_trace.decisions()["applied"].eq(False).any(), "the fixture should hold a failed request"
    assert busy_trace.queue()["event"].str.contains("rate").any(), "... and a rate-limited requeue"
    path = busy_trace.save(tmp_path / "run.jsonl")
    assert_same(busy_trace, stsedu.Trace.load(path))


def test_jsonl_records_version_profile_and_seed(busy_trace, tmp_path):
    """The first line is a header naming the format, the kit version, profile and seed; rows name their table."""
    path = busy_trace.save(tmp_path / "run.jsonl")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "stsedu-trace" and header["format_version"] == 1
    assert (header["meta"]["version"], header["meta"]["profile"], header["meta"]["seed"]) == (
        stsedu.__version__, "current", 5)
    tables = {json.loads(line)["table"] for line in lines[1:]}
    assert tables == set(FRAMES)
    assert len(lines) - 1 == sum(len(getattr(busy_trace, n)()) for n in FRAMES)


def test_jsonl_rows_read_with_pandas(busy_trace, tmp_path):
    """The rows are plain JSON objects: pandas reads one table with read_json(lines=True)."""
    path = busy_trace.save(tmp_path / "run.jsonl")
    df = pd.read_json(path, lines=True).iloc[1:]
    assert (df["table"] == "pods").sum() == len(busy_trace.pods())


def test_empty_trace_round_trips(tmp_path):
    t = stsedu.Cluster().trace
    loaded = stsedu.Trace.load(t.save(tmp_path / "empty.jsonl"))
    assert all(len(getattr(loaded, n)()) == 0 for n in FRAMES)
    assert_same(t, loaded)


def test_load_refuses_other_files(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"hello": 1}\n')
    with pytest.raises(ValueError, match="not an stsedu trace"):
        stsedu.Trace.load(p)
    p.write_text(json.dumps({"format": "stsedu-trace", "format_version": 99}) + "\n")
    with pytest.raises(ValueError, match="newer than this stsedu reads"):
        stsedu.Trace.load(p)


def test_pod_rows_carry_the_clock_time():
    """A kubelet change between syncs is recorded at the time it happened, not at the last sync's time."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(WEB_YAML)
    c.sync("web")
    c.advance(7)
    c.kubelet.start("web-0")
    last = c.trace.pods().iloc[-1]
    assert (last["sync"], last["time"], last["phase"]) == (1, 7.0, "Running")


def test_parquet_round_trip(busy_trace, tmp_path):
    """With pyarrow installed, a .parquet path writes one table with a `table` column; it loads back the same."""
    pytest.importorskip("pyarrow")
    path = busy_trace.save(tmp_path / "run.parquet")
    assert_same(busy_trace, stsedu.Trace.load(path))
    assert set(pd.read_parquet(path)["table"]) == set(FRAMES)


def test_parquet_without_pyarrow_says_what_to_do(busy_trace, tmp_path):
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed")
    except ImportError:
        pass
    with pytest.raises(ImportError, match="needs pyarrow"):
        busy_trace.save(tmp_path / "run.parquet")
    assert not (tmp_path / "run.parquet").exists()
