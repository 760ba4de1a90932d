// The front end of stsedu.charts.ChartWidget: draw the widget's Vega-Lite spec with
// vega-embed once, and keep that Vega view alive: when the kernel sends only new values for
// the same structure (rows, parameters, size: stsedu/views/charts/spec_patch.py), they go
// into the live view (view.data, view.signal, runAsync); a new structure is drawn anew.
//
// This file has no imports on purpose: tools/build_vega_bundle.py bundles it with
// vl-convert-python's javascript_bundle(), which supplies `vegaEmbed` (with Vega and
// Vega-Lite) and writes one self-contained ES module into stsedu/data/vega/. The kernel
// only reads that file, so charts draw with no network and no vl-convert at run time.

const ACTIONS = { export: true, source: false, compiled: false, editor: false };

async function render({ model, el }) {
    let shown = null;        // the vega-embed result now on screen
    let shownBase;           // the spec (model's _base) it was drawn from, or the one being drawn
    let drawing = false;     // a full draw is under way: it applies the newest values when done
    let latest = 0;          // number of the newest draw asked for

    function showError(error) {
        const box = document.createElement("pre");
        box.className = "stsedu-chart-error";
        box.style.color = "#b00020";
        box.textContent = "chart failed: " + (error && error.message ? error.message : String(error));
        el.replaceChildren(box);
    }

    function record(asked) {
        // For tests and the redraw benchmark: how many draws have finished (with when the last
        // one did and when its spec or values arrived, on the page's performance clock).
        el.dataset.stseduDraws = String(Number(el.dataset.stseduDraws || 0) + 1);
        el.dataset.stseduDrawnAt = String(performance.now());
        el.dataset.stseduAskedAt = String(asked);  // so drawing took DrawnAt - AskedAt (Vega's part)
    }

    async function apply(view, values) {
        for (const [name, rows] of Object.entries(values.datasets || {})) {
            view.data(name, structuredClone(rows));  // Vega marks the rows it ingests: keep the model's clean
        }
        for (const [name, value] of Object.entries(values.signals || {})) view.signal(name, value);
        if (values.width != null) view.width(values.width);
        if (values.height != null) view.height(values.height);
        await view.runAsync();
    }

    async function patch() {
        if (drawing || !shown) return;  // the draw under way takes the newest values itself
        const ticket = ++latest;
        const asked = performance.now();  // the new values are here: the kernel's part is over
        try {
            await apply(shown.view, model.get("_patch") || {});
        } catch (error) {
            if (ticket === latest) showError(error);
            return;
        }
        if (ticket === latest) record(asked);
    }

    async function draw() {
        const ticket = ++latest;
        const asked = performance.now();  // the new spec is here: the kernel's part is over
        const spec = model.get("_base");
        shownBase = spec;
        if (spec == null) {
            if (shown) { shown.finalize(); shown = null; }
            el.replaceChildren();
            return;
        }
        // Draw the new view beside the old one and swap when it is ready: the cell keeps
        // its height, so a redraw neither blanks nor jumps.
        const target = document.createElement("div");
        target.className = "stsedu-chart";
        el.appendChild(target);
        let result;
        drawing = true;
        try {
            const options = Object.assign({ actions: ACTIONS }, model.get("embed_options") || {});
            result = await vegaEmbed(target, structuredClone(spec), options);
            if (ticket === latest) await apply(result.view, model.get("_patch") || {});
        } catch (error) {
            target.remove();
            if (ticket === latest) { drawing = false; showError(error); }
            return;
        }
        if (ticket !== latest) {  // a newer spec arrived while this one was drawing
            result.finalize();
            target.remove();
            return;
        }
        drawing = false;
        if (shown) shown.finalize();
        shown = result;
        for (const child of Array.from(el.children)) {
            if (child !== target) child.remove();
        }
        // For tests: the live view and the spec it was drawn from (its datasets' names).
        target.stseduView = result.view;
        target.stseduSpec = spec;
        record(asked);
    }

    function changed() {
        if (model.get("_base") !== shownBase) draw();
        else patch();
    }

    function redraw() { shownBase = undefined; changed(); }

    model.on("change:_base", changed);
    model.on("change:_patch", changed);
    model.on("change:embed_options", redraw);
    await draw();
    return () => {
        model.off("change:_base", changed);
        model.off("change:_patch", changed);
        model.off("change:embed_options", redraw);
        if (shown) shown.finalize();
    };
}

export default { render };
