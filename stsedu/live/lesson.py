"""One lesson on the kit and on a real control plane, side by side (notebook 17).

:func:`run_both` plays a scenario on the kit and on a live session and returns a
:class:`Lesson`; :func:`stored` loads the lesson recorded from a real run that ships with the
kit (``stsedu/data/live/``), for machines with no Go and no cluster. :meth:`Lesson.save`
writes one (``tools/record_live_lesson.py`` does it for the shipped one).

A :class:`Lesson` holds both traces (the live one holds writes, not decisions), the live
writes in order, and both runs' stable points; :meth:`Lesson.agreement` tables them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..i18n import _
from ..trace import Trace
from ..frames import kit_frame

STORED = Path(__file__).resolve().parent.parent / "data" / "live"


@dataclass
class Lesson:
    scenario: str
    kit_trace: Trace
    live_trace: Trace
    live_writes: list
    kit_points: list
    live_points: list
    source: str
    """``"stored"`` (recorded on a real control plane, shipped with the kit) or ``"live"`` (just now)."""

    @property
    def note(self) -> str:
        """What the live trace says of itself (its ``meta["note"]``: it holds writes, not decisions), in the
        learner's language; the trace keeps it in English, as recorded."""
        note = self.live_trace.meta.get("note") or ""
        return _(note) if note else ""  # gettext("") is the catalogue's header

    def agreement(self):
        """One row per stable point: the step, what changed, each side's pods, and whether they agree."""
        rows = []
        for k, l in zip(self.kit_points, self.live_points):
            def pods(p):
                return " ".join(f"{n}@{rev[-5:]}{'' if ready else '(not Ready)'}"
                                for n, rev, phase, ready, term, owner in p["observed"]["pods"]) or "–"
            rows.append({
                "after step": k["step"], "change": "+".join(k["actions"]),
                "kit pods": pods(k), "real pods": pods(l),
                "pods, claims, revisions, status": "✓" if all(
                    _same(k["observed"][part], l["observed"][part]) for part in ("pods", "pvcs", "revisions", "sets"))
                else "✗",
                "creates/deletes in order": "✓" if [tuple(c) for c in k["changes"]] == [tuple(c) for c in l["changes"]]
                else "✗"})
        return kit_frame(rows)

    def writes_table(self):
        """The real control plane's writes, in order (who wrote them is not recorded: see the causes)."""
        return kit_frame(self.live_writes, columns=["verb", "kind", "name", "what changed"])

    def save(self, folder: str | Path) -> Path:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.live_trace.save(folder / f"{self.scenario}.trace.jsonl")
        data = {"scenario": self.scenario, "live_writes": [list(w) for w in self.live_writes],
                "kit_points": _plain(self.kit_points), "live_points": _plain(self.live_points)}
        path = folder / f"{self.scenario}.json"
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return path


def _plain(points):
    return [{k: v for k, v in p.items() if k != "texts"} for p in json.loads(json.dumps(points))]


def _same(a, b) -> bool:
    return json.loads(json.dumps(a)) == json.loads(json.dumps(b))


def run_both(scenario, session) -> Lesson:
    """Play *scenario* (a name or a Scenario) on the kit and on *session* (a LiveSession)."""
    from ..lessons import scenarios
    from .runner import play, play_kit
    sc = scenarios.load(scenario) if isinstance(scenario, str) else scenario
    kit = play_kit(sc, texts=False)
    live = play(sc, session, texts=False)
    return Lesson(sc.name, kit.trace, live.trace, live.writes, _plain(kit.points), _plain(live.points), "live")


def stored(name: str = "first-statefulset") -> Lesson:
    """The lesson recorded on a real control plane that ships with the kit; the kit side is run now."""
    from ..lessons import scenarios
    from .runner import play_kit
    path = STORED / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in STORED.glob("*.json"))
        raise KeyError(f"no stored live lesson {name!r} (stored: {', '.join(known) or 'none'})")
    data = json.loads(path.read_text(encoding="utf-8"))
    kit = play_kit(scenarios.load(name), texts=False)
    return Lesson(name, kit.trace, Trace.load(STORED / f"{name}.trace.jsonl"),
                  [tuple(w) for w in data["live_writes"]], _plain(kit.points), data["live_points"], "stored")
