"""Colours shared by every table and chart, so a state, an action or a revision looks the same everywhere.

Chosen for teaching: the Okabe–Ito palette (distinguishable with the common
colour-vision deficiencies, and on a projector), each hue with one meaning
per family.  Charts draw on a white background, tables tint rows with
translucent versions, so both read in JupyterLab's light and dark themes.
"""

from __future__ import annotations

STATE_COLORS: dict[str, str] = {
    "Pending": "#E69F00",      # orange: created, waiting to start
    "Running": "#56B4E9",      # sky blue: started, not Ready
    "CrashLoopBackOff": "#F0E442",  # yellow: its container crashed; the kubelet restarts it
    "Ready": "#0072B2",        # blue: Ready, minReadySeconds not yet passed
    "Available": "#009E73",    # bluish green: counts as available
    "Terminating": "#CC79A7",  # reddish purple: deleted, shutting down
    "Failed": "#D55E00",       # vermilion: ended in failure
    "Succeeded": "#7F7F7F",    # grey: ended (the controller replaces it)
}
"""Pod state -> colour (the order is the lifecycle order used in legends)."""

ACTION_COLORS: dict[str, str] = {
    "create": "#009E73",  # green, like Available: a pod comes
    "delete": "#D55E00",  # vermilion: a pod goes
    "update": "#E69F00",  # orange: a pod is patched in place (identity, storage)
    "wait": "#0072B2",    # blue: the sync stops and waits
    "other": "#7F7F7F",   # grey: claims, revisions, status, adopt/release
}
"""Decision action (create/delete/update/wait, everything else as "other") -> colour."""

DELETE_SHAPE = "M-0.75,-1L0,-0.25L0.75,-1L1,-0.75L0.25,0L1,0.75L0.75,1L0,0.25L-0.75,1L-1,0.75L-0.25,0L-1,-0.75Z"
"""An ✕ as a filled SVG path (Vega's own ``cross`` is a plus sign)."""

ACTION_SHAPES: dict[str, str] = {
    "create": "triangle-up", "delete": DELETE_SHAPE, "update": "diamond", "wait": "circle", "other": "square",
}
"""Decision action -> Vega-Lite point shape (a second cue besides colour; waits are drawn hollow)."""

REVISION_COLORS: tuple[str, ...] = (
    "#999999",  # the first revision: neutral grey (the "old" pods)
    "#EE7733",  # the second: orange (the first update)
    "#0077BB",  # blue
    "#009988",  # teal
    "#CC3311",  # red
    "#33BBEE",  # cyan
    "#EE3377",  # magenta
    "#000000",  # black
)
"""Revision colours by order of first appearance in a trace (Paul Tol's vibrant scheme, grey first).

A trace's first revision is always grey and the next always orange, so a
rolling update reads as orange sweeping over grey in every chart."""

PARTITION_COLOR = "#8250df"
"""The partition line's colour in the revision map: purple, which no revision uses."""

COUNTER_COLORS: dict[str, str] = {
    "replicas": "#000000",
    "ready": "#0072B2",
    "available": "#009E73",
    "current": "#999999",
    "updated": "#EE7733",
}
"""Status counter -> colour (current/updated echo the old/new revision colours)."""

SPEC_COLOR = "#D55E00"
"""The spec's replicas reference line."""
