"""Issue 26 item 5: a lab's redraw sends only the changed values to the Vega view kept alive in the page.

The chart widget splits each spec into its structure and its values (stsedu/views/charts/spec_patch.py):
the spec the page draws must be the given chart (same marks, colours, axes, tooltips), valid Vega-Lite,
and a change that keeps the structure must cross the comm as rows and parameters only.
"""

from __future__ import annotations

from pathlib import Path

import altair as alt
from altair.utils.schemapi import validate_jsonschema
import pytest

import stsedu
from stsedu import charts
from stsedu.views.charts.spec_patch import split
from test_tables import manifest_rollout

CHARTS = ("pod_timeline", "revision_map", "status_counters", "decision_strip", "overview")


@pytest.fixture(scope="module")
def rollout():
    return manifest_rollout()


def _resolve(node, signals, names):
    """*node* with every parameter read by expression replaced by its value and datasets renamed back."""
    if isinstance(node, list):
        return [_resolve(x, signals, names) for x in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"expr"} and node["expr"] in signals:
        return signals[node["expr"]]
    out = {k: _resolve(v, signals, names) for k, v in node.items()}
    if isinstance(out.get("data"), dict) and out["data"].get("name") in names:
        out["data"] = {**out["data"], "name": names[out["data"]["name"]]}
    return out


@pytest.mark.parametrize("name", CHARTS)
def test_the_drawn_spec_is_the_chart_with_its_values_named(rollout, name):
    """Putting the values back into the drawn spec gives the chart as Altair made it, and the drawn spec
    is valid Vega-Lite (the ExprRefs in scale domains and axis values are allowed by the schema)."""
    spec = charts.to_spec(getattr(charts, name)(rollout.trace))
    drawn, skeleton, values = split(spec)
    validate_jsonschema(drawn, alt.vegalite.v6.schema.core.load_schema())
    names = {}
    for new, rows in values["datasets"].items():  # the original dataset with these very rows
        old = next(k for k, r in spec["datasets"].items() if r == rows)
        names[new] = old
    back = _resolve({k: v for k, v in drawn.items() if k != "datasets"}, values["signals"], names)
    extra = [p["name"] for p in back.pop("params", []) if p["name"] not in values["signals"]]
    assert not extra or spec.get("params")
    if spec.get("params"):
        back["params"] = spec["params"]
    assert back == {k: v for k, v in spec.items() if k != "datasets"}
    assert "datasets" not in skeleton and all(n.startswith("stsedu_") for n in values["signals"])


def test_a_lab_change_sends_only_the_values_to_the_live_view(rollout):
    """The pod timeline a second later (a lab's change: the x axis reaches a later now, the rows grow):
    the same structure, so the page gets new rows and the new x domain, not a new spec to embed."""
    trace = rollout.trace
    now = charts.common.until_time(trace, None)
    w = charts.ChartWidget(charts.pod_timeline(trace, until=now))
    bases, patches = [], []
    w.observe(lambda ch: bases.append(ch["new"]), names="_base")
    w.observe(lambda ch: patches.append(ch["new"]), names="_patch")
    later = charts.to_spec(charts.pod_timeline(trace, until=now + 5))
    w.update(later)
    assert bases == [] and len(patches) == 1
    sent = patches[0]
    assert list(sent["datasets"].values()) == list(later["datasets"].values())
    assert [0.0, now + 5] in sent["signals"].values()
    assert w.spec == later
    w.update(charts.revision_map(trace))  # another kind of chart: a new spec is drawn
    assert len(bases) == 1 and w._patch == {}


def test_a_new_legend_entry_is_a_new_structure():
    """Colour domains with their own ranges (the legend) stay in the structure: a state that was not
    there before (web-0 Ready after the first sync's Pending) draws a new spec, not a patch with wrong colours."""
    c = stsedu.Cluster(seed=0)
    c.apply((Path(stsedu.__file__).parent / "data" / "web.yaml").read_text())
    c.sync("web")
    early = charts.to_spec(charts.pod_timeline(c.trace))
    c.run("web")
    late = charts.to_spec(charts.pod_timeline(c.trace))
    assert split(early)[1] != split(late)[1]
    w = charts.ChartWidget(early)
    base = w._base
    w.update(late)
    assert w._base is not base and w._patch == {}
