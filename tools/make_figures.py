"""Draw the charts of the docs' manifest rollout into docs/img/ and list them in the README and docs/charts.md.

    python tools/make_figures.py

The run: the concept page's ``web`` StatefulSet (stsedu/data/web.yaml: 3 replicas,
minReadySeconds 10), the auto kubelet with seed 0, run until stable; then
``set_image`` to a new nginx tag (a rolling update) and run until stable again.
Everything is offline and deterministic: the same stsedu gives the same PNGs.
The block between the ``figures`` markers in README.md and docs/charts.md is
rewritten; the rest of those files is left alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stsedu  # noqa: E402
from stsedu import charts  # noqa: E402

NEW_IMAGE = "registry.k8s.io/nginx-slim:0.25"

FIGURES = {
    "pod_timeline": "Pod timeline: one row per ordinal, coloured by state",
    "revision_map": "Revision map: the new revision sweeps down from the top ordinal",
    "status_counters": "Status counters: one lane per status field, spec.replicas dashed",
    "decision_strip": "Decision strip: what each sync did, to which pod",
    "overview": "Overview: all four on one sync axis (hover a sync in JupyterLab)",
}
"""Chart function name -> caption; each is saved as docs/img/<name>.png."""

BEGIN, END = "<!-- figures:begin (tools/make_figures.py) -->", "<!-- figures:end -->"


def manifest_rollout() -> stsedu.Cluster:
    """The docs' manifest rollout, as a cluster whose trace holds the whole run."""
    c = stsedu.Cluster(kubelet="auto", seed=0)
    c.apply((Path(stsedu.__file__).parent / "data" / "web.yaml").read_text())
    c.run("web")
    c.set_image("web", NEW_IMAGE)
    c.run("web")
    return c


def figure_block(prefix: str) -> str:
    """The markdown between the markers; *prefix* is the path from the document to docs/img."""
    lines = [BEGIN, ""]
    for name, caption in FIGURES.items():
        lines += [f"**{caption}** (`stsedu.charts.{name}(cluster.trace)`)", "",
                  f"![{caption}]({prefix}{name}.png)", ""]
    lines.append(END)
    return "\n".join(lines)


def replace_block(path: Path, prefix: str) -> bool:
    """Rewrite the figures block of *path*; return False if the file has no markers."""
    text = path.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        return False
    path.write_text(pattern.sub(lambda _: figure_block(prefix), text))
    return True


def main() -> int:
    out = ROOT / "docs" / "img"
    trace = manifest_rollout().trace
    for name in FIGURES:
        path = charts.save(getattr(charts, name)(trace), out / f"{name}.png", scale=1.5)
        print(f"wrote {path.relative_to(ROOT)}")
    for doc, prefix in ((ROOT / "README.md", "docs/img/"), (ROOT / "docs" / "charts.md", "img/")):
        if doc.exists() and replace_block(doc, prefix):
            print(f"updated the figures in {doc.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
