"""Every lab walked in JupyterLab + Chromium, at its default size and at 50 replicas (issue #26).

For each lab, a notebook builds it in a real kernel; the test then moves every control in the page
as a learner would (each toggle option, each slider to both ends and back by typing into its box,
each checkbox both ways, each button), and after every move compares what the PAGE shows with the
CLUSTER, read from the kernel (a probe executed beside the notebook that prints JSON):

* the status line: "stable at" only when ``stsedu.widgets.settled.unsettled`` finds nothing left,
  "not stable" otherwise; its "Now t=..." is the cluster's clock; an error box only for a refused move;
* the toggles: the pressed button of every toggle group is the cluster's value; every slider's
  handle and typed-value box show the spec's value;
* the chart as drawn by Vega in the page: it has data rows, the same rows the kernel sent, names
  only pods that existed in the cluster, and its x axis reaches the cluster's now (a time axis) or
  its last sync (a sync axis).

One JupyterLab server for the module; a fresh kernel per lab and size.  Skipped when
/usr/bin/chromium is missing.  ``-k "UpdateLab and 50"`` runs one walk.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"),
]

TIMEOUT = 120_000  # ms, for each wait: generous, the machine is shared

LABS = ["IdentityLab", "StorageLab", "ScalingLab", "PolicyLab", "UpdateLab", "PartitionLab", "OnDeleteLab",
        "OwnershipLab", "AvailabilityLab", "FaultLab", "HistoryLab", "ProfileLab", "StepLab"]

SETUP = f"""import json, sys
sys.path.insert(0, {str(REPO / "tests")!r})
import ipywidgets as W
import stsedu
from stsedu import labs, examples
from stsedu.widgets.settled import unsettled
from surface_checks import chart_problems, control_problems, control_values, encoded, leaves, status_problems


def at_size(cls, replicas):
    \"\"\"The lab's own manifest with *replicas* (a partition that held every pod still does).\"\"\"
    m = cls.default_manifest(object.__new__(cls))
    if replicas is None:
        return m
    ru = m["spec"].get("updateStrategy", {{}}).get("rollingUpdate") or {{}}
    if ru.get("partition") == m["spec"]["replicas"]:
        ru["partition"] = replicas
    m["spec"]["replicas"] = replicas
    return m


def controls(lab):
    \"\"\"Every control of the lab, in the order shown: what the test will move.\"\"\"
    out = []
    for w in leaves(lab.controls):
        if isinstance(w, W.Button):
            out.append({{"kind": "button", "label": w.description}})
        elif isinstance(w, W.ToggleButtons):
            out.append({{"kind": "toggle", "label": w.description, "options": list(w.options), "value": w.value}})
        elif isinstance(w, W.IntSlider):
            out.append({{"kind": "slider", "label": w.description, "min": w.min, "max": w.max, "value": w.value}})
        elif isinstance(w, W.Checkbox):
            out.append({{"kind": "checkbox", "label": w.description, "value": w.value}})
    print(json.dumps(out))


def probe(lab):
    \"\"\"The cluster's side of what the page should show, as JSON.\"\"\"
    c, name = lab.cluster, lab.name
    exists = lab._exists()
    values = control_values(lab)
    by_label = {{}}
    for attr, want in values.items():
        w = getattr(lab, attr, None)
        if w is not None and want is not None:
            by_label[w.description] = want
    if getattr(lab, "w_healthy", None) is not None:
        by_label[lab.w_healthy.description] = lab._healthy
    pods = c.trace.pods()
    syncs = c.trace.syncs()
    mine = syncs[syncs["set"] == name] if not syncs.empty and "set" in syncs else syncs
    spec = lab.chart.widget.spec or {{}}
    print(json.dumps({{
        "running": bool(lab._running) or not lab.chart.shows_now(c), "now": c.now, "exists": exists,
        "unsettled": unsettled(c, name) if exists else None,
        "error": None if lab.last_error is None else str(lab.last_error),
        "controls": by_label,
        "existed": sorted(set(pods["pod"])) if not pods.empty else [],
        "last_sync": int(len(mine)),
        "chart_kind": lab.chart_kind,
        # the names the page's Vega view holds (the widget names its datasets by order: spec_patch.split)
        "datasets": sorted((lab.chart.widget._base or {{}}).get("datasets", {{}})),
        "rows": sum(len(v) for v in spec.get("datasets", {{}}).values()),
        "x_ends": sorted({{d["encoding"]["x"]["scale"]["domain"][1] for d in encoded(spec)
                          if "domain" in (d["encoding"].get("x", {{}}).get("scale") or {{}})}}),
        "problems": (chart_problems(lab.chart.chart, c, name) if exists else [])
                    + status_problems(lab) + control_problems(lab),
    }}, default=str))
"""

# ----------------------------------------------------------------------- page side

CURRENT = ("(() => { const w = window.jupyterapp?.shell.currentWidget;"
           " return w?.context?.path?.endsWith('{name}') ? w : null; })()")

KERNEL_EXEC = """async ([current, code]) => {
    const w = eval(current);
    const kernel = w.sessionContext.session.kernel;
    const future = kernel.requestExecute({code, store_history: false, silent: false});
    let out = "", err = "";
    future.onIOPub = (msg) => {
        const t = msg.header.msg_type;
        if (t === "stream") out += msg.content.text;
        else if (t === "error") err += msg.content.ename + ": " + msg.content.evalue;
    };
    await future.done;
    return {out, err};
}"""

PAGE = """(panel) => {
    const text = (el) => el ? el.innerText.trim() : null;
    const label = (el) => text(el.querySelector(':scope > .widget-label'));
    const out = {did: text(panel.querySelector('.lab-did')), error: text(panel.querySelector('.lab-error')),
                 toggles: {}, sliders: {}, checkboxes: {}, progress_shown: false};
    for (const g of panel.querySelectorAll('.widget-toggle-buttons')) {
        const buttons = [...g.querySelectorAll('button.widget-toggle-button')];
        out.toggles[label(g)] = {on: buttons.filter(b => b.classList.contains('mod-active')).map(b => b.innerText.trim()),
                                 options: buttons.map(b => b.innerText.trim())};
    }
    for (const s of panel.querySelectorAll('.widget-hslider')) {
        const handle = s.querySelector('[aria-valuenow]');
        const box = s.parentElement.querySelector('.widget-text input');
        out.sliders[label(s)] = {handle: handle ? Number(handle.getAttribute('aria-valuenow')) : null,
                                 box: box ? Number(box.value) : null};
    }
    for (const c of panel.querySelectorAll('.widget-checkbox')) {
        const i = c.querySelector('input');
        out.checkboxes[text(c.querySelector('label, span'))] = i.checked;
    }
    const bar = panel.querySelector('.widget-progress');
    out.progress_shown = !!(bar && bar.closest('.widget-hbox') && bar.closest('.widget-hbox').offsetParent);
    const drawn = panel.querySelector('.stsedu-lab-chart .stsedu-chart');
    out.chart = null;
    if (drawn && drawn.stseduView) {
        const view = drawn.stseduView, names = Object.keys(drawn.stseduSpec.datasets || {}).sort();
        const rows = [];
        for (const n of names) { try { rows.push(...view.data(n)); } catch (e) {} }
        const xs = {};
        for (const s of Object.keys(view._runtime.scales)) {
            if (/(^|_)x$/.test(s)) xs[s] = view.scale(s).domain().map(Number);
        }
        out.chart = {datasets: names, rows: rows.length, pods: [...new Set(rows.map(r => r.pod).filter(p => typeof p === 'string'))],
                     x: xs, draws: Number(drawn.parentElement.dataset.stseduDraws || 0)};
    }
    return out;
}"""


def _same_ends(x: dict, ends: list) -> bool:
    """The page's x scales end where the kernel's spec says (a patch may still be on its way)."""
    got = sorted({round(float(d[1]), 6) for d in x.values()})
    return not ends or got == sorted({round(float(e), 6) for e in ends})


class Walk:
    """One lab in one notebook: move its controls in the page, read the page and the kernel."""

    def __init__(self, page, current):
        self.page, self.current = page, current

    def kernel(self, code: str, tries: int = 5):
        """Run *code* in the lab's kernel; its last printed line, as JSON.  The widgets' handlers may run
        beside it (a change still being handled): an error is tried again a few times."""
        for _ in range(tries):
            r = self.page.evaluate(KERNEL_EXEC, [self.current, code])
            if not r["err"]:
                return json.loads(r["out"].strip().splitlines()[-1])
            self.page.wait_for_timeout(300)
        raise AssertionError(r["err"])

    @property
    def panel(self):
        return self.page.locator(".stsedu-lab-panel").last

    def read(self):
        return self.panel.evaluate(PAGE)

    def settle(self):
        """Wait until the kernel has finished the move (a run in the background included) and the page
        has drawn what the kernel sent; return (cluster facts, page facts)."""
        facts = None
        for _ in range(600):  # until the kernel has redrawn and two probes agree
            before, facts = facts, self.kernel("probe(lab)")
            if not facts["running"] and facts == before:
                break
            self.page.wait_for_timeout(150)
        else:
            raise AssertionError("the lab's run did not end")
        page = None
        for _ in range(TIMEOUT // 200):  # Vega draws asynchronously; a loaded machine may take a while
            page = self.read()
            # the same datasets, rows and x ends: the page's live view has taken the kernel's last values
            chart_ok = (not facts["datasets"]) or (page["chart"] is not None
                                                  and page["chart"]["datasets"] == facts["datasets"]
                                                  and page["chart"]["rows"] == facts["rows"]
                                                  and _same_ends(page["chart"]["x"], facts["x_ends"]))
            shown = page["error"] if facts["error"] else page["did"]
            if chart_ok and shown and "running…" not in (page["did"] or ""):
                return facts, page
            self.page.wait_for_timeout(200)
        raise AssertionError(f"the page did not show the kernel's state: kernel {facts}, page {page}")

    # ------------------------------------------------------------- moves, as a learner makes them
    def click_toggle(self, label, option):
        group = self.panel.locator(".widget-toggle-buttons").filter(
            has=self.page.locator(":scope > .widget-label", has_text=label))
        group.locator("button.widget-toggle-button", has_text=option).first.click()

    def type_slider(self, label, value):
        slider = self.panel.locator(".widget-hslider").filter(
            has=self.page.locator(":scope > .widget-label", has_text=label)).first
        box = slider.locator("xpath=..").locator(".widget-text input")
        box.fill(str(value))
        box.press("Enter")

    def click_checkbox(self, label):
        self.panel.locator(".widget-checkbox").filter(has_text=label).locator("input").click()

    def click_button(self, label):
        self.panel.get_by_role("button", name=label, exact=True).click()


def _moves(controls):
    for c in controls:
        if c["kind"] == "button":
            yield c["label"], ("click_button", c["label"])
        elif c["kind"] == "toggle":
            for o in [o for o in c["options"] if o != c["value"]] + [c["value"]]:
                yield f"{c['label']}={o}", ("click_toggle", c["label"], o)
        elif c["kind"] == "slider":
            for v in (c["max"], c["min"], c["value"]):
                yield f"{c['label']}={v}", ("type_slider", c["label"], v)
        elif c["kind"] == "checkbox":
            yield f"{c['label']} off", ("click_checkbox", c["label"])
            yield f"{c['label']} on", ("click_checkbox", c["label"])


def _problems(facts, page) -> list[str]:
    """What the page shows that the cluster does not have."""
    out = list(facts["problems"])  # the kernel-side checks of tests/surface_checks.py, as a bonus
    # the status line
    if facts["error"]:
        if not page["error"]:
            out.append(f"the change was refused ({facts['error']}) and the page shows no error")
    else:
        did = page["did"] or ""
        if f"Now t={facts['now']:g}s" not in did:
            out.append(f"the status line {did!r} does not say the cluster's now, t={facts['now']:g}s")
        stable_claim = "stable at" in did and "not stable" not in did
        if stable_claim and facts["unsettled"]:
            out.append(f"the page says stable: {did!r}, but the set is not: {facts['unsettled']}")
        if "not stable" in did and facts["unsettled"] == [] and "Stop" not in did:
            out.append(f"the page says not stable: {did!r}, but the set is")
    # the controls
    for label, want in facts["controls"].items():
        if label in page["toggles"]:
            t = page["toggles"][label]
            # a value the lab offers no button for (an image typed in code) shows no button pressed
            if t["on"] != ([want] if want in t["options"] else []):
                out.append(f"toggle {label!r} shows {t['on']} pressed, the cluster has {want!r}")
        elif label in page["sliders"]:
            s = page["sliders"][label]
            if s["handle"] != want or s["box"] != want:
                out.append(f"slider {label!r} shows handle {s['handle']} and box {s['box']}, the cluster has {want}")
        elif label in page["checkboxes"]:
            if page["checkboxes"][label] != want:
                out.append(f"checkbox {label!r} shows {page['checkboxes'][label]}, the lab has {want}")
    # the chart, as drawn
    chart = page["chart"]
    if facts["datasets"]:
        if chart is None:
            out.append("the page draws no chart")
        else:
            if chart["rows"] == 0:
                out.append("the chart in the page has no data rows")
            if chart["rows"] != facts["rows"]:
                out.append(f"the page draws {chart['rows']} rows, the kernel sent {facts['rows']}")
            ghosts = set(chart["pods"]) - set(facts["existed"])
            if ghosts:
                out.append(f"the chart names pods that never existed: {sorted(ghosts)}")
            end = facts["now"] if facts["chart_kind"] in ("timeline", "counters") else facts["last_sync"]
            if not chart["x"]:
                out.append("the chart in the page has no x axis")
            for name, (_lo, hi) in chart["x"].items():
                if hi < end - 0.5 - 1e-9:
                    axis = "time" if facts["chart_kind"] in ("timeline", "counters") else "sync"
                    out.append(f"the chart's {axis} axis {name} ends at {hi:g}, the cluster is at {end:g} "
                               f"(the kernel's spec: {facts['x_ends']}, {chart['draws']} draws)")
    return out


def _notebook(root: Path, cls: str, replicas: int | None) -> str:
    name = f"walk-{cls}-{replicas or 'default'}.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(
        f"lab = labs.{cls}(at_size(labs.{cls}, {replicas!r}))\nlab")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)
    return name


def open_lab(page, jupyter_server, cls, replicas) -> Walk:
    from playwright.sync_api import expect
    url, root = jupyter_server
    name = _notebook(root, cls, replicas)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{url}/lab/tree/{name}?reset")
    current = CURRENT.replace("{name}", name)
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'",
                           timeout=TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    expect(page.locator(".stsedu-lab-panel")).to_have_count(1, timeout=TIMEOUT)
    assert page.locator(".jp-OutputArea-output").filter(has_text="Traceback").count() == 0
    walk = Walk(page, current)
    walk.panel.scroll_into_view_if_needed()
    return walk


@pytest.mark.parametrize("replicas", [None, 50], ids=["default", "50"])
@pytest.mark.parametrize("cls", LABS)
def test_walk_every_control_and_check_the_page_against_the_cluster(cls, replicas, jupyter_server, page):
    walk = open_lab(page, jupyter_server, cls, replicas)
    try:
        moved = _walk(walk, replicas)
        assert moved, "no control was moved"
    finally:  # one kernel per walk: stop it, the server keeps running for the next lab
        page.evaluate(f"() => {walk.current}.sessionContext.shutdown()")


def _walk(walk, replicas):
    facts, shown = walk.settle()
    assert _problems(facts, shown) == [], ("first view", _problems(facts, shown))
    if replicas:
        assert facts["controls"].get("replicas", replicas) == replicas
    controls = walk.kernel("controls(lab)")
    assert controls, "a lab with no control"
    moved = []
    for what, (verb, *args) in _moves(controls):
        getattr(walk, verb)(*args)
        facts, shown = walk.settle()
        moved.append(what)
        assert _problems(facts, shown) == [], (what, _problems(facts, shown))
    assert len(moved) >= len(controls)
    return moved


# ------------------------------------------------------------------ 04's LoopLab

LOOP_SETUP = f"""import json, sys, html
sys.path.insert(0, {str(REPO / "tests")!r})
from stsedu.widgets import LoopLab
from stsedu.widgets.loop_lab import SETS, loop_summary
from stsedu.widgets.settled import unsettled


def loop_probe(lab):
    \"\"\"The cluster's side of what the LoopLab's page should show, as JSON.\"\"\"
    c = lab.cluster
    rows = [r for v in (lab.chart.spec or {{}}).get("datasets", {{}}).values() for r in v]
    print(json.dumps({{
        "now": c.now, "syncs": len(lab.last_results),
        "end": lab.last_results[-1].time if lab.last_results else c.now,
        "unsettled": {{name: unsettled(c, name) for name, _ in SETS}},
        "counters": {{k: f"{{v:g}}" for k, v in loop_summary(c).items()}},  # as a number is shown
        "controls": {{"informer delay (s)": lab.delay.value, "workers": lab.workers.value,
                      "first step": lab.start.value, "API error on pod create": lab.error.value}},
        "first_step_max": lab.start.max,
        "rows": len(rows), "steps": [min(r["step"] for r in rows), max(r["step"] for r in rows)] if rows else [],
        "keys": sorted({{r["key"] for r in rows if r.get("key")}}),
        "sets": sorted(f"{{s.namespace}}/{{s.name}}" for s in c.statefulsets()),
    }}, default=str))
"""

LOOP_PAGE = """(panel) => {
    const text = (el) => el ? el.innerText.trim() : null;
    const out = {did: text(panel.querySelector('.lab-did')), counters: {}, sliders: {}, toggles: {}};
    for (const tr of panel.querySelectorAll('table tr')) {
        const cells = [...tr.querySelectorAll('td')].map(td => td.innerText.trim());
        if (cells.length === 2 && !tr.closest('.stsedu-lab-decisions')) out.counters[cells[0]] = cells[1];
    }
    for (const s of panel.querySelectorAll('.widget-hslider')) {
        out.sliders[text(s.querySelector(':scope > .widget-label'))] = {
            handle: Number(s.querySelector('[aria-valuenow]').getAttribute('aria-valuenow')),
            readout: Number(text(s.querySelector('.widget-readout')))};
    }
    for (const b of panel.querySelectorAll('button.widget-toggle-button')) {
        out.toggles[b.innerText.trim()] = b.classList.contains('mod-active');
    }
    const drawn = panel.querySelector('.stsedu-lab-chart .stsedu-chart');
    out.chart = null;
    if (drawn && drawn.stseduView) {
        const view = drawn.stseduView, rows = [];
        for (const n of Object.keys(drawn.stseduSpec.datasets || {})) { try { rows.push(...view.data(n)); } catch (e) {} }
        const xs = {};
        for (const s of Object.keys(view._runtime.scales)) {
            if (/(^|_)x$/.test(s)) xs[s] = view.scale(s).domain().map(Number);
        }
        out.chart = {rows: rows.length, keys: [...new Set(rows.map(r => r.key).filter(k => k))].sort(),
                     steps: rows.length ? [Math.min(...rows.map(r => r.step)), Math.max(...rows.map(r => r.step))] : [],
                     x: xs, draws: Number(drawn.parentElement.dataset.stseduDraws || 0)};
    }
    return out;
}"""


def _loop_problems(facts, page) -> list[str]:
    """What the LoopLab's page shows that its last run does not have."""
    out = []
    did = page["did"] or ""
    if f"{facts['syncs']} syncs" not in did or f"at t={facts['end']:g}s" not in did:
        out.append(f"the status line {did!r} does not say the run's {facts['syncs']} syncs, ending at t={facts['end']:g}s")
    left = {k: v for k, v in facts["unsettled"].items() if v}
    if ("both sets stable" in did) == bool(left):
        out.append(f"the status line {did!r} against the sets' state {facts['unsettled']}")
    if page["counters"] != facts["counters"]:
        out.append(f"the counters show {page['counters']}, the run has {facts['counters']}")
    for label, want in facts["controls"].items():
        if label in page["toggles"]:
            if page["toggles"][label] != want:
                out.append(f"toggle {label!r} shows {page['toggles'][label]}, the lab has {want}")
        elif label in page["sliders"]:
            s = page["sliders"][label]
            if abs(s["handle"] - want) > 1e-9 or abs(s["readout"] - want) > 1e-9:
                out.append(f"slider {label!r} shows {s}, the lab has {want}")
        else:
            out.append(f"the page has no control {label!r}")
    chart = page["chart"]
    if chart is None or chart["rows"] == 0:
        out.append("the page draws no chart rows")
    else:
        if chart["rows"] != facts["rows"] or chart["steps"] != facts["steps"]:
            out.append(f"the page draws {chart['rows']} rows, steps {chart['steps']}; the kernel sent "
                       f"{facts['rows']}, steps {facts['steps']}")
        if facts["steps"] and facts["steps"][0] != facts["controls"]["first step"]:
            out.append(f"the chart starts at step {facts['steps'][0]}, the slider says {facts['controls']['first step']}")
        if set(chart["keys"]) - set(facts["sets"]):
            out.append(f"the chart names keys of no set: {sorted(set(chart['keys']) - set(facts['sets']))}")
        for name, (_lo, hi) in chart["x"].items():
            if facts["steps"] and hi < facts["steps"][1] - 0.5:
                out.append(f"the chart's step axis {name} ends at {hi:g}, before its last step {facts['steps'][1]}")
    return out


def test_walk_the_loop_lab_and_check_the_page_against_its_run(jupyter_server, page):
    """04's LoopLab in the page: every control moved (each slider by its readout, to both ends and back; the
    API-error toggle on and off), and after each move its status line, counters, controls and chart are
    those of the run the kernel made."""
    from playwright.sync_api import expect
    url, root = jupyter_server
    name = "walk-LoopLab.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LOOP_SETUP),
                                         nbformat.v4.new_code_cell("lab = LoopLab()\nlab")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{url}/lab/tree/{name}?reset")
    current = CURRENT.replace("{name}", name)
    page.wait_for_function(f"() => {current}?.sessionContext?.session?.kernel?.status === 'idle'", timeout=TIMEOUT)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    expect(page.locator(".stsedu-lab-panel")).to_have_count(1, timeout=TIMEOUT)
    walk = Walk(page, current)
    walk.panel.scroll_into_view_if_needed()

    def settle():
        facts = None
        for _ in range(TIMEOUT // 200):
            before, facts = facts, walk.kernel("loop_probe(lab)")
            if facts == before:
                shown = walk.panel.evaluate(LOOP_PAGE)
                if not _loop_problems(facts, shown):
                    return facts, shown
            page.wait_for_timeout(200)
        return facts, walk.panel.evaluate(LOOP_PAGE)

    def type_readout(label, value):
        slider = walk.panel.locator(".widget-hslider").filter(
            has=page.locator(":scope > .widget-label", has_text=label)).first
        readout = slider.locator(".widget-readout")
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(f"{value:g}")
        page.keyboard.press("Enter")

    try:
        facts, shown = settle()
        assert _loop_problems(facts, shown) == [], ("first view", _loop_problems(facts, shown))
        moves = [("informer delay 2", lambda: type_readout("informer delay (s)", 2.0)),
                 ("informer delay 0", lambda: type_readout("informer delay (s)", 0.0)),
                 ("API error on", lambda: walk.panel.get_by_role("button", name="API error on pod create").click()),
                 ("workers 2", lambda: type_readout("workers", 2)),
                 ("workers 1", lambda: type_readout("workers", 1)),
                 ("API error off", lambda: walk.panel.get_by_role("button", name="API error on pod create").click())]
        seen = {}
        for what, move in moves:
            move()
            facts, shown = settle()
            assert _loop_problems(facts, shown) == [], (what, _loop_problems(facts, shown))
            seen[what] = facts
        # the moves took effect: a control the page says moved, moved the kernel's run too
        assert seen["informer delay 2"]["controls"]["informer delay (s)"] == 2.0
        assert seen["API error on"]["counters"]["failed API calls"] == "3"
        assert seen["workers 2"]["controls"]["workers"] == 2
        top = facts["first_step_max"]
        assert top > 0, "the run is longer than the chart's window, so 'first step' can move"
        for value in (top, 0):
            type_readout("first step", value)
            facts, shown = settle()
            assert facts["controls"]["first step"] == value
            assert _loop_problems(facts, shown) == [], (f"first step {value}", _loop_problems(facts, shown))
    finally:
        page.evaluate(f"() => {current}.sessionContext.shutdown()")
