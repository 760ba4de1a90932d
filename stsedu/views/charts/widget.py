"""Showing and saving charts with no network and no vl-convert: :class:`ChartWidget`, :func:`enable_offline`, :func:`save`.

The chart widget's front end (Vega, Vega-Lite, vega-embed and ``tools/vega/chart_widget.js``)
is bundled once by ``tools/build_vega_bundle.py`` and shipped in ``stsedu/data/vega/``, so a
chart draws offline and the kernel never runs vl-convert.  Everything here is re-exported by
:mod:`stsedu.charts`, which is where to import it from.
"""

from __future__ import annotations

from pathlib import Path
import sys


def _import_altair():
    """Import Altair without jsonschema's optional IRI format check.

    Altair imports jsonschema, which imports every optional format checker it finds.  In
    an environment with Jupyter's server packages, one of them is rfc3987-syntax
    (jupyter-events asks for ``jsonschema[format-nongpl]``), which builds a parser for the
    IRI grammar at import: about 16 MiB of a kernel's memory, for a check neither Altair
    nor the kit uses.  The module is hidden only while jsonschema first loads (nothing
    changes if jsonschema is already imported) and is importable again afterwards.
    """
    hide = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
    if hide:
        sys.modules["rfc3987_syntax"] = None  # "import rfc3987_syntax" raises ImportError
    try:
        import altair
    finally:
        if hide and sys.modules.get("rfc3987_syntax", False) is None:
            del sys.modules["rfc3987_syntax"]
    return altair


alt = _import_altair()
from altair.utils.schemapi import debug_mode  # noqa: E402
import anywidget  # noqa: E402
import traitlets  # noqa: E402

from .spec_patch import split  # noqa: E402

__all__ = ["ChartWidget", "to_spec", "build_chart", "enable_offline", "save", "EXPORT_HINT"]

_VEGA = Path(__file__).resolve().parents[2] / "data" / "vega"
_BUNDLE: str | None = None


def _bundle() -> str:
    """The chart widget's JavaScript (Vega, Vega-Lite, vega-embed and the widget), read once.

    Built by tools/build_vega_bundle.py and shipped in the package, so drawing a chart needs
    neither a network nor vl-convert.
    """
    global _BUNDLE
    if _BUNDLE is None:
        _BUNDLE = (_VEGA / "chart_widget.js").read_text(encoding="utf-8")
    return _BUNDLE


def to_spec(chart_or_spec) -> dict | None:
    """The Vega-Lite dict of *chart_or_spec* (an Altair chart, a dict, or None), without schema validation.

    Altair validates a chart against the whole Vega-Lite JSON schema every time it turns
    it into a dict for display; for the kit's charts, whose form is fixed by this module
    and checked by its tests, that check is most of the cost of showing a chart.  Data
    still go through Altair's data transformer (its row limit included).
    """
    if chart_or_spec is None or isinstance(chart_or_spec, dict):
        return chart_or_spec
    if isinstance(chart_or_spec, alt.TopLevelMixin):
        with debug_mode(False):  # nor the small parts to_dict makes on the way (datasets, names)
            return chart_or_spec.to_dict(validate=False)
    raise TypeError(f"a chart must be an Altair chart, a Vega-Lite dict or None, not {type(chart_or_spec).__name__}")


def build_chart(chart_fn, *args, **kwargs):
    """``chart_fn(*args, **kwargs)`` (one of the kit's chart functions) with Altair's check of each part
    as it is made turned off: what a lab or panel calls on every redraw.

    In its default debug mode Altair checks every scale, axis, legend and tooltip against the
    Vega-Lite JSON schema the moment it is made; for a lab's chart that was about a third of
    the kernel's part of a redraw.  The chart is the same either way, and the tests check the
    kit's charts whole (``chart.to_dict()`` validates the full spec, tests/views/test_charts.py).
    """
    with debug_mode(False):
        return chart_fn(*args, **kwargs)


class ChartWidget(anywidget.AnyWidget):
    """One chart on screen that redraws in place: ``w = ChartWidget(chart)``, then ``w.update(new_chart)``
    or, for a chart with a data function, ``w.show(data)``.

    A Jupyter widget (anywidget) whose front end is Vega-Lite and vega-embed, shipped in
    the package (stsedu/data/vega/): it draws offline, with no CDN and no vl-convert.
    The page keeps one Vega view alive.  ``update`` splits the new spec into its structure
    and its values (:mod:`stsedu.views.charts.spec_patch`): when the structure is the one
    on screen (a lab's change: new rows, the x axis reaching a later "now", more ordinals),
    only the values go to the page, which puts them into the live view; otherwise the whole
    spec goes, and the browser swaps the drawing when the new one is ready (no blank
    frame).  A spec equal to the one shown sends nothing.  ``show`` takes a chart's
    :class:`~stsedu.views.charts.chart_data.ChartData` instead: when its structure is the
    one on screen, its rows and numbers go to the page and no Altair chart is made at all;
    otherwise it draws ``data.chart()`` as ``update`` would.  *chart_or_spec* is an
    Altair chart, a Vega-Lite dict, or None (nothing shown).  ``spec`` is the dict shown
    (made from the data when it is asked for, after a ``show``), ``chart`` the Altair chart
    shown (likewise).  Other keyword arguments go to the widget (e.g. ``layout=``).  Works
    without a kernel, so tests can build one and read ``spec``.
    """

    _base = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """What the page draws anew: the shown spec with its values named (spec_patch.split)."""
    _patch = traitlets.Dict(default_value={}).tag(sync=True)
    """The values that bring the page's live view of ``_base`` to ``spec`` ({} right after a new base)."""
    embed_options = traitlets.Dict(default_value={}).tag(sync=True)
    _css = ".stsedu-chart .vega-embed { overflow: visible; }"

    def __init__(self, chart_or_spec=None, **kwargs) -> None:
        if "_esm" not in ChartWidget.__dict__:  # read on first use, not at import
            ChartWidget._esm = _bundle()
        super().__init__(**kwargs)
        self._chart = None
        self._spec = None
        self._data = None      # the ChartData shown by show(), or None after update()
        self._skeleton = None
        self._names = None     # for show(): the data's structure on screen and its names there
        self.update(chart_or_spec)

    @property
    def chart(self):
        """The Altair chart shown (None for a dict or nothing)."""
        return self._data.chart() if self._data is not None else self._chart

    @property
    def spec(self) -> dict | None:
        """The Vega-Lite dict shown (after :meth:`show`, made from its data now)."""
        return to_spec(self.chart) if self._data is not None else self._spec

    def update(self, chart_or_spec) -> None:
        """Show *chart_or_spec* in this widget (the same widget: no new output, no new widget)."""
        self._put(chart_or_spec)
        self._names = None

    def _put(self, chart_or_spec) -> dict:
        """Show *chart_or_spec*; returns the values of the split spec now shown ({} when unchanged)."""
        spec = to_spec(chart_or_spec)
        same = self._data is None and spec == self._spec  # (after show(), a new spec means a new structure)
        self._data = None
        self._chart = chart_or_spec if isinstance(chart_or_spec, alt.TopLevelMixin) else None
        self._spec = spec
        if same:
            return split(spec)[2] if spec is not None else {}
        drawn, skeleton, values = split(spec) if spec is not None else (None, None, {})
        with self.hold_sync():  # one message: the page never sees a new base with the old values
            if skeleton is not None and skeleton == self._skeleton:
                self._patch = values
            else:
                self._skeleton = skeleton
                self._patch = {}
                self._base = drawn
        return values

    def show(self, data) -> None:
        """Show the chart of *data* (a ChartData): only its values when its structure is on screen."""
        if self._names is not None and self._names[0] == (data.build, data.structure):
            _, datasets, signals = self._names
            self._data = data
            patch = {"datasets": {datasets[k]: rows for k, rows in data.rows.items()},
                     "signals": {signals[k]: v for k, v in data.params.items()}}
            # a chart of several panels has no size of its own (each panel has its own): none to send
            patch.update({k: v for k, v in (("width", data.width), ("height", data.height)) if v is not None})
            self._patch = patch
            return
        values = self._put(data.chart())
        self._data = data
        self._names = _names_on_page(data, values)

    def __repr__(self) -> str:
        return f"<stsedu ChartWidget: {'empty' if self._data is None and self._spec is None else 'a Vega-Lite chart'}>"


def _names_on_page(data, values: dict):
    """``((build, structure), dataset names, parameter names)``: under which name the page's view holds
    each of *data*'s datasets and numbers, read from the split spec's *values*; None when that is not
    one to one (two datasets with the same rows, two numbers equal: spec_patch merges them)."""
    datasets, signals = {}, {}
    for mine, out, theirs in ((data.rows, datasets, values.get("datasets", {})),
                              (data.params, signals, values.get("signals", {}))):
        for key, v in mine.items():
            hits = [name for name, w in theirs.items() if w == v]
            if len(hits) != 1:
                return None
            out[key] = hits[0]
        if len(set(out.values())) != len(out) or len(out) != len(theirs):
            return None
    if values.get("width") != data.width or values.get("height") != data.height:
        return None
    return (data.build, data.structure), datasets, signals


_RENDERER = "stsedu"


def _static_svg(spec: dict) -> dict:
    """``{"image/svg+xml": ...}`` drawn by vl-convert, or ``{}`` where it is not installed."""
    try:
        import vl_convert as vlc
    except ImportError:
        return {}
    try:
        from altair.utils._importers import vl_version_for_vl_convert
        return {"image/svg+xml": vlc.vegalite_to_svg(spec, vl_version=vl_version_for_vl_convert())}
    except Exception:  # pragma: no cover - a static copy is a bonus, never a reason to show nothing
        return {}


def _mimebundle(spec: dict | None, static_fallback: bool = False):
    data, meta = _split(ChartWidget(spec)._repr_mimebundle_())
    if static_fallback and spec is not None:
        data = {**data, **_static_svg(spec)}
    return (data, meta) if meta else data


def _split(bundle):
    return bundle if isinstance(bundle, tuple) else (bundle, {})


def _offline_renderer(spec: dict, **metadata):
    """Altair renderer ``stsedu``: the chart in a :class:`ChartWidget` (for ``chart.display()`` and the like)."""
    return _mimebundle(spec, metadata.get("static_fallback", False))


_SETTINGS = {"static_fallback": False}


def _format_chart(chart):
    """IPython's display of an Altair chart once :func:`enable_offline` ran: a ChartWidget, no validation."""
    try:
        spec = to_spec(chart)
    except Exception as e:  # noqa: BLE001 - show the error as text, like Altair, not a traceback from here
        return {"text/plain": f"chart failed: {type(e).__name__}: {e}"}
    return _mimebundle(spec, _SETTINGS["static_fallback"])


def enable_offline(static_fallback: bool = False) -> None:
    """Show Altair charts in JupyterLab 4 with no network and no vl-convert: each chart in a :class:`ChartWidget`.

    After this call a chart at the end of a cell (or passed to ``display``) is drawn by
    the Vega JavaScript shipped in this package, without Altair's per-display schema
    validation.  *static_fallback* also attaches an SVG drawn by vl-convert, for HTML
    exports and untrusted views, when vl-convert-python is installed
    (``pip install 'stsedu[export]'``); it costs time and memory on every chart, so it is
    off by default.  Idempotent and silent: call it in every notebook's first cell.
    """
    _SETTINGS["static_fallback"] = bool(static_fallback)
    if _RENDERER not in alt.renderers.names():
        alt.renderers.register(_RENDERER, _offline_renderer)
    if alt.renderers.active != _RENDERER or alt.renderers.options.get("static_fallback") != static_fallback:
        alt.renderers.enable(_RENDERER, static_fallback=bool(static_fallback))
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with every Jupyter kernel
        return
    ip = get_ipython()
    if ip is not None:
        ip.display_formatter.mimebundle_formatter.for_type(alt.TopLevelMixin, _format_chart)


EXPORT_HINT = "pip install 'stsedu[export]'"
"""What to install for PNG, SVG and PDF export (vl-convert-python, at the version Altair needs)."""


def _html_page(spec: dict) -> str:
    """A self-contained HTML page drawing *spec* with the shipped bundle (no network, no vl-convert)."""
    import json
    code = json.dumps(_bundle()).replace("</", "<\\/")
    data = json.dumps(split(spec)[0]).replace("</", "<\\/")
    title = spec.get("title", "") if isinstance(spec.get("title"), str) else (spec.get("title") or {}).get("text", "")
    import html
    return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" + html.escape(str(title or "chart"))
            + "</title></head><body><div id='chart'></div>\n<script type='module'>\n"
            f"const code = {code};\nconst spec = {data};\n"
            "const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));\n"
            "const widget = (await import(url)).default;\n"
            "const model = {get: (k) => (k === '_base' ? spec : {}), on() {}, off() {}};\n"
            "await widget.render({model, el: document.getElementById('chart')});\n"
            "</script></body></html>\n")


def save(chart, path, scale: float = 2.0) -> Path:
    """Write *chart* to *path* with no network: ``.png`` (at *scale*), ``.svg``, ``.pdf``, ``.html`` or ``.json``.

    ``.html`` (a page with the Vega JavaScript inlined) and ``.json`` (the Vega-Lite spec)
    need nothing more than the kit.  PNG, SVG and PDF are drawn by vl-convert-python, an
    optional extra: without it this raises ImportError saying what to install
    (``pip install 'stsedu[export]'``).  Returns the path.  Raise ValueError for another
    extension.
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in ("png", "svg", "pdf", "html", "json"):
        raise ValueError(f"cannot save a chart as {path.suffix or 'a file without extension'!r}; "
                         "use .png, .svg, .pdf, .html or .json")
    if fmt in ("png", "svg", "pdf"):
        try:
            import vl_convert  # noqa: F401
        except ImportError:
            raise ImportError(f"saving a chart as .{fmt} needs vl-convert-python, which is not installed here; "
                              f"install it with: {EXPORT_HINT}  (.html and .json need nothing more)") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "png":
        chart.save(str(path), format="png", scale_factor=scale)
    elif fmt in ("svg", "pdf"):
        chart.save(str(path), format=fmt)
    elif fmt == "json":
        import json
        path.write_text(json.dumps(to_spec(chart), indent=2) + "\n", encoding="utf-8")
    else:
        path.write_text(_html_page(to_spec(chart)), encoding="utf-8")
    return path
