// The front end of stsedu.charts.ChartWidget: draw the widget's Vega-Lite spec with
// vega-embed, and draw it again, in the same place, whenever the kernel sends a new spec.
//
// This file has no imports on purpose: tools/build_vega_bundle.py bundles it with
// vl-convert-python's javascript_bundle(), which supplies `vegaEmbed` (with Vega and
// Vega-Lite) and writes one self-contained ES module into stsedu/data/vega/. The kernel
// only reads that file, so charts draw with no network and no vl-convert at run time.

const ACTIONS = { export: true, source: false, compiled: false, editor: false };

async function render({ model, el }) {
    let shown = null;   // the vega-embed result now on screen
    let latest = 0;     // number of the newest draw asked for

    function showError(error) {
        const box = document.createElement("pre");
        box.className = "stsedu-chart-error";
        box.style.color = "#b00020";
        box.textContent = "chart failed: " + (error && error.message ? error.message : String(error));
        el.replaceChildren(box);
    }

    async function draw() {
        const ticket = ++latest;
        const asked = performance.now();  // the new spec is here: the kernel's part is over
        const spec = model.get("spec");
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
        try {
            const options = Object.assign({ actions: ACTIONS }, model.get("embed_options") || {});
            result = await vegaEmbed(target, structuredClone(spec), options);
        } catch (error) {
            target.remove();
            if (ticket === latest) showError(error);
            return;
        }
        if (ticket !== latest) {  // a newer spec arrived while this one was drawing
            result.finalize();
            target.remove();
            return;
        }
        if (shown) shown.finalize();
        shown = result;
        for (const child of Array.from(el.children)) {
            if (child !== target) child.remove();
        }
        // For tests and the redraw benchmark: the drawn view and its spec, and how many draws
        // have finished (with when the last one did and when its spec arrived, on the page's performance clock).
        target.stseduView = result.view;
        target.stseduSpec = spec;
        el.dataset.stseduDraws = String(Number(el.dataset.stseduDraws || 0) + 1);
        el.dataset.stseduDrawnAt = String(performance.now());
        el.dataset.stseduAskedAt = String(asked);  // so drawing took DrawnAt - AskedAt (Vega's part)
    }

    model.on("change:spec", draw);
    model.on("change:embed_options", draw);
    await draw();
    return () => {
        model.off("change:spec", draw);
        model.off("change:embed_options", draw);
        if (shown) shown.finalize();
    };
}

export default { render };
