"""Long runs in JupyterLab + Chromium (issue #41): a click that starts a run, to the page saying it ended.

For the Playground (*Run until stable*) and every lab that can be given a size, at its default size, 50
and 500 replicas: the wall time from the click to the page's final line, the kernel's messages that
reached the page meanwhile (websocket frames) and per sync, and the chart's redraws (its draw counter,
tools/vega/chart_widget.js); beside it the engine alone, ``Cluster`` making the same change in this
process.  benchmarks/run.py's item 11 calls :func:`measure`; ``python benchmarks/browser_runs.py``
runs it alone (``--sizes default,50,500 --what Playground,UpdateLab``).
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

CHROMIUM = "/usr/bin/chromium"

RUNS = {
    # what: (the cell that shows it at a size, the control pressed, the line that says the run ended)
    "Playground": ("from stsedu.widgets import Playground\npg = Playground({args})\npg",
                   "Run until stable", r"(Stable|Stopped|Gave up) after (\d+) syncs?"),
    "ScalingLab": ("from stsedu import labs, examples\nlab = labs.ScalingLab({args})\nlab",
                   "replicas-1", r"(\d+) syncs?, (stable at|then at)"),
    "UpdateLab": ("from stsedu import labs, examples\nlab = labs.UpdateLab({args})\nlab",
                  "nginx:2", r"(\d+) syncs?, (stable at|then at)"),
    "PartitionLab": ("from stsedu import labs, examples\nlab = labs.PartitionLab({args})\nlab",
                     "nginx:2", r"(\d+) syncs?, (stable at|then at)"),
    "OnDeleteLab": ("from stsedu import labs, examples\nlab = labs.OnDeleteLab({args})\nlab",
                    "nginx:2", r"(\d+) syncs?, (stable at|then at)"),
    "FaultLab": ("from stsedu import labs, examples\nlab = labs.FaultLab({args})\nlab",
                 "Roll out nginx:broken", r"(\d+) syncs?, (stable at|then at)"),
}
"""What is timed: the Playground from an empty set (its replicas wanted, no pod yet) to stable; a lab
(built at the size, so its pods are up) after one change: replicas one down, a new image, a broken rollout."""

_PANELS = ".stsedu-lab-panel, .stsedu-pg"

_RUN_JS = """async ([control, pattern]) => {
    const panel = document.querySelector('.stsedu-lab-panel, .stsedu-pg');
    const status = panel.querySelector('.stsedu-info-area') || panel.querySelector('.lab-did').parentElement;
    const chartBox = panel.querySelector('.stsedu-chart');
    const chart = chartBox ? chartBox.parentElement : null;
    const draws0 = chart ? Number(chart.dataset.stseduDraws || 0) : 0;
    const frames0 = window.__stseduFrames || 0;
    const before = status.innerText;
    const re = new RegExp(pattern);
    let mutations = 0;
    const obs = new MutationObserver(ms => { mutations += ms.length; });
    obs.observe(panel, {subtree: true, childList: true, characterData: true, attributes: true});
    const t0 = performance.now();
    if (control === 'replicas-1') {
        const box = [...panel.querySelectorAll('.widget-hslider')]
            .find(s => s.querySelector('.widget-label').innerText.trim() === 'replicas')
            .parentElement.querySelector('.widget-text input');
        box.value = String(Number(box.value) - 1);
        box.dispatchEvent(new Event('change', {bubbles: true}));
    } else {
        [...panel.querySelectorAll('button')].find(b => b.innerText.trim() === control).click();
    }
    const deadline = t0 + 900000;
    while (!(re.test(status.innerText) && status.innerText !== before && !/running/.test(status.innerText))) {
        if (performance.now() > deadline) { obs.disconnect(); return null; }
        await new Promise(r => setTimeout(r, 20));
    }
    const done = performance.now();
    // the chart's last redraw after the line: wait for it up to 30 s (its count no longer moves for 1 s)
    let draws = chart ? Number(chart.dataset.stseduDraws || 0) : 0, still = performance.now();
    while (chart && performance.now() - still < 1000 && performance.now() - done < 30000) {
        await new Promise(r => setTimeout(r, 50));
        const d = Number(chart.dataset.stseduDraws || 0);
        if (d !== draws) { draws = d; still = performance.now(); }
    }
    obs.disconnect();
    const drawnAt = chart ? Number(chart.dataset.stseduDrawnAt || done) : done;
    return {seconds: (done - t0) / 1000, chart_done: (Math.max(done, drawnAt) - t0) / 1000,
            text: status.innerText, draws: draws - draws0, frames: (window.__stseduFrames || 0) - frames0,
            mutations};
}"""

_KERNEL_EXEC = """async ([current, code]) => {
    const kernel = eval(current).sessionContext.session.kernel;
    const future = kernel.requestExecute({code, store_history: false, silent: false});
    let out = "";
    future.onIOPub = (msg) => { if (msg.header.msg_type === "stream") out += msg.content.text; };
    await future.done;
    return out;
}"""

_KERNEL_CPU = "import time as _t; print(_t.process_time())"

_COUNT_FRAMES = """() => {
    if (window.__stseduCounting) return;
    window.__stseduCounting = true;
    window.__stseduFrames = 0;
    const Real = window.WebSocket;
    // every websocket the page opens from now on counts the messages it receives (the kernel's included)
    window.WebSocket = function (...args) {
        const ws = new Real(...args);
        ws.addEventListener('message', () => { window.__stseduFrames += 1; });
        return ws;
    };
    window.WebSocket.prototype = Real.prototype;
    Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
}"""


def process_cpu() -> dict[str, float]:
    """CPU seconds (user + system) of this process's descendants, by kind: "browser" (every Chromium
    process: the page's renderer, the GPU and network processes), "kernel" (ipykernel), "server"
    (JupyterLab's server).  Read from /proc: unlike the page's busy time, the load does not inflate it."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, info = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parent[int(d)] = int(fields[1])
        info[int(d)] = (cmd, (int(fields[11]) + int(fields[12])) / tick)
    me, out = os.getpid(), {"browser": 0.0, "kernel": 0.0, "server": 0.0}
    for pid, (cmd, cpu) in info.items():
        p = pid
        while p in parent and p != me and p > 1:
            p = parent[p]
        if p != me or pid == me:
            continue
        kind = ("kernel" if "ipykernel" in cmd else "browser" if "chrom" in cmd
                else "server" if "jupyter" in cmd else None)
        if kind:
            out[kind] += cpu
    return out


def _args(what: str, replicas: int | None) -> str:
    if replicas is None:
        return ""
    return f"replicas={replicas}" if what == "Playground" else f"examples.web({replicas})"


def engine_alone(what: str, replicas: int | None) -> tuple[float, float, int]:
    """The same change made by ``Cluster`` alone in this process: (wall s, CPU s, syncs)."""
    import stsedu
    from stsedu import labs
    from stsedu.lessons import examples
    from stsedu.widgets.panels import default_manifest
    if what == "Playground":
        docs = default_manifest()
        for d in docs:
            if d.get("kind") == "StatefulSet" and replicas is not None:
                d["spec"]["replicas"] = replicas
        c = stsedu.Cluster()
        t0, p0 = time.perf_counter(), time.process_time()
        c.apply(copy.deepcopy(docs))
        k = len(c.run("web", max_syncs=300 + 10 * (replicas or 3) * 2))
        return time.perf_counter() - t0, time.process_time() - p0, k
    cls = getattr(labs, what)
    m = examples.web(replicas) if replicas is not None else cls.default_manifest(object.__new__(cls))
    c = stsedu.Cluster()
    c.apply(m)
    n = c.statefulset("web").spec.replicas
    c.run("web", max_syncs=300 + 10 * n)
    t0, p0 = time.perf_counter(), time.process_time()
    control = RUNS[what][1]
    if control == "replicas-1":
        c.scale("web", n - 1)
    elif control == "Roll out nginx:broken":
        c.kubelet.never_ready(image="nginx:broken")
        c.set_image("web", "nginx:broken")
    else:
        c.set_image("web", control)
    k = len(c.run("web", max_syncs=300 + 10 * n))
    return time.perf_counter() - t0, time.process_time() - p0, k


def open_in_lab(page, url: str, root: Path, name: str, code: str) -> str:
    """Write a notebook *name* of one cell, *code*, into the server's *root*; open it in JupyterLab and wait
    for its kernel.  Returns the page's expression for the notebook's panel (None until it is current)."""
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)
    current = ("(() => { const w = window.jupyterapp?.shell.currentWidget;"
               f" return w?.context?.path?.endsWith('{name}') ? w : null; }})()")
    page.goto(f"{url}/lab/tree/{name}?reset")
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'")
    return current


def measure(where, *, timeout_s: float = 900, say=print, profile: bool = False) -> dict:
    """{(what, replicas): figures} for each (what, replicas) of *where*, one notebook and kernel each."""
    from lab_server import chromium, jupyter_lab
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp, jupyter_lab(Path(tmp)) as (url, root), chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1500})
        page = context.new_page()
        page.set_default_timeout(timeout_s * 1000)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def page_busy() -> float:  # time the page's main thread was busy (CDP's TaskDuration: wall time, the load inflates it)
            return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")
        page.add_init_script(f"({_COUNT_FRAMES})()")
        for what, replicas in where:
            cell, control, pattern = RUNS[what]
            current = open_in_lab(page, url, root, f"run-{what}-{replicas or 'default'}.ipynb",
                                  cell.format(args=_args(what, replicas)))
            t_build = time.perf_counter()
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function("() => document.querySelector('" + _PANELS + "')")
            page.wait_for_function(f"() => {current}.sessionContext.session.kernel.status === 'idle'")
            build = time.perf_counter() - t_build
            page.locator(_PANELS).first.scroll_into_view_if_needed()
            page.wait_for_timeout(1500)
            cpu0 = float(page.evaluate(_KERNEL_EXEC, [current, _KERNEL_CPU]))
            if profile:
                page.evaluate(_KERNEL_EXEC, [current, "import cProfile as _cp; _pr = _cp.Profile(); _pr.enable()"])
            page0, cpu_before = page_busy(), process_cpu()
            got = page.evaluate(_RUN_JS, [control, pattern])
            if got is not None:
                if profile:
                    say(page.evaluate(_KERNEL_EXEC, [current, "_pr.disable(); import pstats; "
                                                              "pstats.Stats(_pr).sort_stats('cumulative').print_stats(45)"]))
                got["page_busy"] = page_busy() - page0
                cpu_after = process_cpu()
                got["cpu"] = {k: cpu_after[k] - cpu_before[k] for k in cpu_after}
                got["kernel_cpu"] = float(page.evaluate(_KERNEL_EXEC, [current, _KERNEL_CPU])) - cpu0
            page.evaluate(f"() => {current}.sessionContext.shutdown()")
            if got is None:
                out[(what, replicas)] = None
                say(f"  {what} at {replicas or 'default size'}: no end line within {timeout_s:.0f} s")
                continue
            m = re.search(r"(\d+) syncs?", got["text"])
            got["syncs"] = int(m.group(1)) if m else 0
            got["build"] = build
            got["engine"] = engine_alone(what, replicas)
            got["final"] = got["text"].strip().splitlines()[0][:110]
            out[(what, replicas)] = got
            say(f"  {what} at {replicas or 'default size'}: {got['seconds']:.2f} s to the end line "
                f"({got['chart_done']:.2f} s to its last chart), {got['syncs']} syncs, "
                f"{got['frames']} messages ({got['frames'] / max(1, got['syncs']):.2f} a sync), "
                f"{got['draws']} chart redraws, {got['mutations']} DOM mutations, kernel CPU {got['kernel_cpu']:.2f} s, "
                f"page busy {got['page_busy']:.2f} s; CPU of the browser {got['cpu']['browser']:.2f} s, "
                f"the server {got['cpu']['server']:.2f} s, the kernel {got['cpu']['kernel']:.2f} s; "
                "engine alone "
                f"{got['engine'][0]:.2f} s wall, {got['engine'][1]:.2f} s CPU, {got['engine'][2]} syncs; "
                f"built in {build:.1f} s. Page: {got['final']!r}", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--what", default=",".join(RUNS))
    ap.add_argument("--sizes", default="default,50,500")
    ap.add_argument("--profile", action="store_true", help="print the kernel's cProfile of each run")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"skipped: no {CHROMIUM}")
        return 0
    sizes = [None if s == "default" else int(s) for s in args.sizes.split(",")]
    print("load %.2f %.2f %.2f" % os.getloadavg())
    measure([(w, s) for s in sizes for w in args.what.split(",")], profile=args.profile)
    print("load %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
