"""The chart widget, offline display, export without vl-convert, and every chart's row bound.

Issue 17: charts draw with no network and no vl-convert in the kernel, redraw in place, and
no dataset of any chart holds more than charts.MAX_ROWS rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import altair as alt
import pandas as pd
import pytest

import stsedu
from stsedu import charts
from stsedu.views.charts import common
from helpers import web
from test_tables import manifest_rollout

ROOT = Path(__file__).resolve().parents[2]
CHARTS = ("pod_timeline", "revision_map", "status_counters", "decision_strip", "overview")
CDNS = ("cdn.jsdelivr", "esm.sh", "unpkg.com", "https://", "http://")


@pytest.fixture(scope="module")
def rollout():
    return manifest_rollout()


def test_chart_widget_redraws_in_place(rollout):
    """One widget per chart view: update() gives the same widget a new spec, and an equal spec sends nothing."""
    w = charts.ChartWidget(charts.pod_timeline(rollout.trace))
    sent = []
    w.observe(lambda change: sent.append(change["new"]), names=["_base", "_patch"])  # what crosses the comm
    first = w.spec
    assert first["title"]["text"] == "Pods of web over time"
    w.update(charts.revision_map(rollout.trace))
    assert w.spec["title"]["text"] == "Revisions of web, sync by sync" and len(sent) == 1
    w.update(charts.revision_map(rollout.trace))  # the same chart again: nothing crosses the comm
    assert len(sent) == 1
    w.update(None)
    assert w.spec is None and w.chart is None and len(sent) == 2
    w.update({"mark": "point"})
    assert w.spec == {"mark": "point"}


@pytest.mark.parametrize("name", CHARTS)
def test_a_chart_built_for_a_redraw_is_the_chart_and_is_valid(rollout, name):
    """charts.build_chart (a lab's redraw: Altair's per-object checks off) gives the very spec of the plain
    call, and that spec passes Altair's full validation; the plain call leaves Altair's debug mode on."""
    import altair.utils.schemapi as schemapi
    fn = getattr(charts, name)
    quick = charts.build_chart(fn, rollout.trace)
    assert schemapi.DEBUG_MODE  # restored after the build
    assert charts.to_spec(quick) == charts.to_spec(fn(rollout.trace))
    quick.to_dict(validate=True)


def test_chart_widget_sees_a_change_in_an_expression_filter():
    """The traitlets pitfall: Altair charts differing only in an alt.datum filter compare "equal";
    the widget compares specs (dicts), so the second one is shown."""
    data = pd.DataFrame({"x": range(10)})
    base = alt.Chart(data).mark_point().encode(x="x:Q")
    w = charts.ChartWidget(base.transform_filter(alt.datum.x < 3))
    w.update(base.transform_filter(alt.datum.x < 7))
    assert "7" in json.dumps(w.spec["transform"])


def test_chart_widget_does_not_validate_the_spec(monkeypatch, rollout):
    """No jsonschema validation per display (it was most of the display time)."""
    chart = charts.overview(rollout.trace)

    def refuse(*a, **k):
        raise AssertionError("validated")
    monkeypatch.setattr(alt.utils.schemapi, "validate_jsonschema", refuse)
    with pytest.raises(AssertionError, match="validated"):  # what Altair's own display does
        chart.to_dict()
    w = charts.ChartWidget(chart)
    assert w.spec["vconcat"]


def test_chart_widget_ships_its_javascript_and_needs_no_network():
    """The widget's front end is the bundle in the package: an ES module with Vega inside, no URL to fetch."""
    w = charts.ChartWidget()
    code = w._esm
    assert code == (ROOT / "stsedu" / "data" / "vega" / "chart_widget.js").read_text()
    assert len(code) > 500_000 and "export{" in code.replace(" ", "")
    assert not any(u in code[:2000] for u in ("import ", "import{")), "the bundle imports nothing"
    versions = json.loads((ROOT / "stsedu" / "data" / "vega" / "VERSIONS.json").read_text())
    assert versions["vega-lite"].startswith("6.") and versions["vega"].startswith("6.")
    assert alt.SCHEMA_VERSION.startswith("v6.")  # the bundle's Vega-Lite 6 draws Altair 6's specs
    assert repr(w) == "<stsedu ChartWidget: empty>"


@pytest.mark.slow
def test_shipped_bundle_is_what_the_build_script_makes():
    """stsedu/data/vega/chart_widget.js == tools/build_vega_bundle.py's output (so the source is the truth)."""
    pytest.importorskip("vl_convert")
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_vega_bundle", ROOT / "tools" / "build_vega_bundle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    code, versions = mod.build()
    assert code == (ROOT / "stsedu" / "data" / "vega" / "chart_widget.js").read_text()
    assert versions == json.loads((ROOT / "stsedu" / "data" / "vega" / "VERSIONS.json").read_text())


def test_enable_offline_shows_charts_as_widgets_in_ipython(rollout):
    """In a kernel, a chart at the end of a cell goes through the kit's formatter: a widget, no SVG, no validation."""
    from IPython.core.interactiveshell import InteractiveShell
    had = InteractiveShell.initialized()
    ip = InteractiveShell.instance()
    before = alt.renderers.active
    try:
        charts.enable_offline()
        data, _ = ip.display_formatter.format(charts.status_counters(rollout.trace))
        assert "application/vnd.jupyter.widget-view+json" in data
        assert "image/svg+xml" not in data and len(data["text/plain"]) < 100
    finally:
        ip.display_formatter.mimebundle_formatter.pop(alt.TopLevelMixin, None)
        alt.renderers.enable(before)
        if not had:
            InteractiveShell.clear_instance()


def test_save_html_and_json_need_only_the_kit(tmp_path, rollout):
    chart = charts.revision_map(rollout.trace)
    page = charts.save(chart, tmp_path / "map.html").read_text()
    assert "vegaEmbed" in page or "vega-embed" in page
    assert '"Revisions of web, sync by sync"' in page
    assert not any(f'src="{u}' in page or f"src='{u}" in page for u in CDNS)
    spec = json.loads(charts.save(chart, tmp_path / "map.json").read_text())
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v6")


def test_the_kit_charts_without_vl_convert():
    """JupyterLite's path (Pyodide has no vl-convert): with vl_convert unimportable the package imports,
    builds every chart and its widget, writes HTML, and save(.png) says what to install."""
    code = textwrap.dedent(f"""
        import sys, tempfile, pathlib
        sys.modules["vl_convert"] = None          # "import vl_convert" now raises ImportError
        sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}, {str(ROOT / 'tests' / 'views')!r}]
        import stsedu
        from stsedu import charts
        from test_tables import manifest_rollout
        c = manifest_rollout()
        charts.enable_offline()
        for name in {CHARTS!r}:
            w = charts.ChartWidget(getattr(charts, name)(c.trace))
            assert w.spec and w._esm
        d = pathlib.Path(tempfile.mkdtemp())
        charts.save(charts.pod_timeline(c.trace), d / "t.html")
        try:
            charts.save(charts.pod_timeline(c.trace), d / "t.png")
        except ImportError as e:
            print("ERR", e)
        assert "vl_convert" not in {{m for m, v in sys.modules.items() if v is not None}}
        print("OK")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("OK")
    assert "ERR saving a chart as .png needs vl-convert-python" in out.stdout
    assert "pip install 'stsedu[export]'" in out.stdout


def _datasets(spec):
    return {name: len(rows) for name, rows in spec.get("datasets", {}).items()}


def _big_run(replicas: int) -> stsedu.Cluster:
    c = stsedu.Cluster(seed=0)
    c.apply(web(replicas, "Parallel"))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    return c


def test_no_chart_holds_more_rows_than_max_rows(monkeypatch):
    """charts.MAX_ROWS bounds every dataset of every chart (status_counters held MAX_ROWS + 1).

    The bound is lowered to 40 so a 30-replica rollout has to aggregate in every chart."""
    c = _big_run(30)
    monkeypatch.setattr(common, "MAX_ROWS", 40)
    for name in CHARTS:
        sizes = _datasets(getattr(charts, name)(c.trace).to_dict(validate=False))
        assert sizes and max(sizes.values()) <= 40, (name, sizes)
    # and the limit is reached where it can be: the status lanes use all of it
    sizes = _datasets(charts.status_counters(c.trace, x="sync").to_dict(validate=False))
    assert max(sizes.values()) == 40


def test_charts_do_not_load_jsonschemas_iri_grammar():
    """Importing the charts keeps jsonschema's optional IRI checker (rfc3987-syntax, ~16 MiB) out of the
    kernel, and leaves the module importable for anyone who wants it."""
    pytest.importorskip("rfc3987_syntax")
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import stsedu.views.charts, jsonschema\n"
            "assert 'rfc3987_syntax' not in sys.modules, 'loaded'\n"
            "import rfc3987_syntax\n"
            "print('OK')" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stderr[-2000:]
