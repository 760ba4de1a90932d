"""Build the chart widget's JavaScript (Vega, Vega-Lite, vega-embed and tools/vega/chart_widget.js) once.

    pip install 'stsedu[export]'       # vl-convert-python, needed only here and for PNG/SVG export
    python tools/build_vega_bundle.py

Writes ``stsedu/data/vega/chart_widget.js`` (one self-contained, minified ES module, loaded by
:class:`stsedu.charts.ChartWidget`) and ``stsedu/data/vega/VERSIONS.json`` (what is inside it).
Run it again when vl-convert-python moves to a newer Vega-Lite, or when chart_widget.js changes;
tests/views/test_chart_widget.py checks the shipped file is what this script makes.

Why this way: the kit needs Vega in the browser with no network, and the kernel should not
carry vl-convert (84 MB, no Pyodide build) just to produce the same 0.9 MB of JavaScript on
every start.  vl-convert-python already contains a pinned, tested Vega + Vega-Lite +
vega-embed and a bundler (Altair's own offline JupyterChart uses it the same way), so this
script runs that bundler once, at release time, and the package ships the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tools" / "vega" / "chart_widget.js"
OUT = ROOT / "stsedu" / "data" / "vega"

VL_VERSION = "6.4"
"""The Vega-Lite the bundle carries: the newest 6.x that vl-convert offers.  Vega-Lite keeps
backward compatibility within a major version, so it draws the specs of every Altair 6.x."""


def snippet() -> str:
    """chart_widget.js without its comment header (the bundler takes a snippet with no imports)."""
    lines = SOURCE.read_text().splitlines()
    while lines and (not lines[0].strip() or lines[0].startswith("//")):
        lines.pop(0)
    return "\n".join(lines) + "\n"


def build() -> tuple[str, dict]:
    import vl_convert as vlc
    code = vlc.javascript_bundle(snippet(), vl_version=VL_VERSION)
    versions = {
        "vega": vlc.get_vega_version(),
        "vega-lite": VL_VERSION,
        "vega-embed": vlc.get_vega_embed_version(),
        "built_with": f"vl-convert-python {getattr(vlc, '__version__', '')}".strip(),
        "licenses": "Vega, Vega-Lite and vega-embed: BSD-3-Clause (c) University of Washington "
                    "Interactive Data Lab; see LICENSES.txt beside this file",
    }
    header = ("// stsedu chart widget: tools/vega/chart_widget.js bundled with Vega "
              f"{versions['vega']}, Vega-Lite {VL_VERSION}, vega-embed {versions['vega-embed']} "
              "(BSD-3-Clause, see LICENSES.txt). Built by tools/build_vega_bundle.py.\n")
    return header + code, versions


def main() -> int:
    try:
        code, versions = build()
    except ImportError:
        print("tools/build_vega_bundle.py needs vl-convert-python: pip install 'stsedu[export]'", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "chart_widget.js").write_text(code)
    (OUT / "VERSIONS.json").write_text(json.dumps(versions, indent=2) + "\n")
    print(f"wrote {OUT / 'chart_widget.js'} ({len(code) / 1024:.0f} KiB): {versions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
