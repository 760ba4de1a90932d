"""Projector mode: everything the kit draws in a notebook, larger, for a room.

``stsedu.display(scale=1.6)`` in any cell makes the outputs of that notebook (charts, tables,
labs, reveals, ``kubectl`` text) *scale* times larger, so that the back row can read them;
``stsedu.display(scale=1)`` puts them back.  It is a style sheet the cell's output carries
(CSS ``zoom`` on JupyterLab's and Notebook's output areas), so it needs no kernel state, lasts
while that output is in the notebook, and changes nothing in a saved figure or a trace.  For the
code itself use JupyterLab's own font size (Settings, Theme, Increase Code Font Size) or View,
Presentation Mode.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_SCALE, MAX_SCALE = 0.5, 4.0
_OUTPUTS = ".jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output, div.output_subarea"
"""A cell's own outputs (not the output areas nested in a lab's widgets, which would zoom twice)."""


@dataclass(frozen=True)
class Projector:
    """What :func:`display` returns: shows as the style sheet in a notebook, as a line in text."""

    scale: float

    def css(self) -> str:
        if self.scale == 1:
            return f"{_OUTPUTS} {{ zoom: normal; }}"
        return f"{_OUTPUTS} {{ zoom: {self.scale:g}; }}"

    def _repr_html_(self) -> str:
        note = "" if self.scale == 1 else f"Projector mode: outputs at {self.scale:g}x."
        return f"<style>{self.css()}</style><span class='stsedu-projector'>{note}</span>"

    def __repr__(self) -> str:
        return (f"Projector mode: outputs at {self.scale:g}x (charts, tables, labs)." if self.scale != 1
                else "Projector mode off: outputs at their usual size.")


def display(scale: float = 1.6) -> Projector:
    """Projector mode: the notebook's outputs *scale* times larger (1 turns it off).

    Raise ValueError unless *scale* is a number from 0.5 to 4.
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not MIN_SCALE <= scale <= MAX_SCALE:
        raise ValueError(f"scale: must be a number from {MIN_SCALE:g} to {MAX_SCALE:g}, not {scale!r}")
    return Projector(float(scale))
