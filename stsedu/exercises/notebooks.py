"""Notebooks made from exercises: an nbgrader source notebook, and the teacher's answer key.

* :func:`nbgrader_source` - an nbgrader *source* notebook: per exercise a
  locked cell that shows the question, an answer cell (``solution: true``; the
  solution, computed by the simulator, sits between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` so that ``nbgrader generate_assignment`` strips it) and a
  hidden autograded test cell (``grade: true`` with the exercise's points) that
  calls the simulator.  Put it in ``source/<assignment>/`` of a course.
* :func:`answer_key` / :func:`answer_key_html` - every answer with its rule and
  the typical mistakes, for the teacher only (never under ``notebooks/``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from .. import files as _files
from . import kinds as K
from .exercise import ExerciseError

SCHEMA_VERSION = 3
KIT_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def slug(exercise_id: str) -> str:
    """``"06.1"`` -> ``"06_1"`` (for variable names and nbgrader grade ids)."""
    return re.sub(r"\W", "_", exercise_id)


def answer_variable(exercise_id: str) -> str:
    return f"answer_{slug(exercise_id)}"


def _meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    m = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA_VERSION,
         "solution": solution, "task": False}
    if grade:
        m["points"] = points
    return {"nbgrader": m}


def _is_shipped(ex) -> bool:
    from .registry import EXERCISES
    return any(e is ex for e in EXERCISES)


def nbgrader_source(exercises: list, title: str = "StatefulSet exercises") -> nbformat.NotebookNode:
    """An nbgrader source notebook (schema version 3 cell metadata) for *exercises*."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    total = sum(e.points for e in exercises)
    intro = (f"# {title}\n\n{len(exercises)} questions, {total} points. For each one, run the cell "
             "that shows the question, predict what the StatefulSet controller will do, and write "
             "your prediction in the answer cell below it (replace `raise NotImplementedError()`). "
             "Your answers are checked by running the simulator after you submit.")
    cells = [nbformat.v4.new_markdown_cell(intro, metadata=_meta("intro", locked=True))]
    setup = ["import stsedu"]
    for e in exercises:
        if not _is_shipped(e):
            setup.append(f"stsedu.exercises.loads({e.text!r}, source={Path(e.source).name!r})")
    cells.append(nbformat.v4.new_code_cell("\n".join(setup), metadata=_meta("setup", locked=True)))
    for e in exercises:
        s, var = slug(e.id), answer_variable(e.id)
        cells.append(nbformat.v4.new_markdown_cell(
            f"## Exercise {e.id} ({e.points} point{'s' * (e.points != 1)})",
            metadata=_meta(f"heading_{s}", locked=True)))
        cells.append(nbformat.v4.new_code_cell(f'stsedu.exercises.get("{e.id}").show()',
                                               metadata=_meta(f"question_{s}", locked=True)))
        solution = (f"# {var} = {K.placeholder(e.kind, e.choices)}\n"
                    f"### BEGIN SOLUTION\n{var} = {K.jsonable(e.expected())!r}\n### END SOLUTION")
        cells.append(nbformat.v4.new_code_cell(solution, metadata=_meta(f"answer_{s}", solution=True)))
        test = (f"# Checked when your notebook is graded: is {var} what the simulator does?\n"
                f"### BEGIN HIDDEN TESTS\nstsedu.exercises.get(\"{e.id}\").assert_correct({var})\n"
                f"### END HIDDEN TESTS")
        cells.append(nbformat.v4.new_code_cell(test, metadata=_meta(f"check_{s}", grade=True, locked=True,
                                                                     points=e.points)))
    nb.cells = cells
    return nb


# ================================================================ answer key


def _entries(exercises: list) -> list[dict]:
    return [{"id": e.id, "points": e.points, "question": e.question, "answer": K.show(e.expected()),
             "python": repr(K.jsonable(e.expected())), "why": e.why, "source": e.source,
             "hints": [(K.show(w), h) for w, h in e.hints], "kind": e.kind} for e in exercises]


def answer_key(exercises: list, title: str = "Answer key") -> nbformat.NotebookNode:
    """The teacher's answer key as a notebook (markdown only; answers computed by the simulator)."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f"# {title}\n\nFor the teacher: every answer below was computed by replaying the exercise's "
        "scenario on the simulator. Keep this file out of the students' folder."))
    for x in _entries(exercises):
        lines = [f"## {x['id']} ({x['points']} point{'s' * (x['points'] != 1)})", "", x["question"], "",
                 f"**Answer:** {x['answer']}  (as Python: `{x['python']}`)", "", f"**Rule:** {x['why']}"]
        if x["hints"]:
            lines += ["", "**Typical mistakes:**"] + [f"- {w}: {h}" for w, h in x["hints"]]
        nb.cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
    return nb


def answer_key_html(exercises: list, title: str = "Answer key") -> str:
    """The teacher's answer key as a self-contained HTML page."""
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>",
             "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}"
             "dt{font-weight:bold}section{border-top:1px solid #ccc;padding:.5em 0}</style></head><body>",
             f"<h1>{e(title)}</h1><p>For the teacher: every answer was computed by replaying the exercise's "
             "scenario on the simulator.</p>"]
    for x in _entries(exercises):
        parts.append(f"<section><h2>{e(x['id'])} ({x['points']} pt)</h2><p>{e(x['question'])}</p><dl>"
                     f"<dt>Answer</dt><dd>{e(x['answer'])} <code>{e(x['python'])}</code></dd>"
                     f"<dt>Rule</dt><dd>{e(x['why'])}</dd>")
        if x["hints"]:
            parts.append("<dt>Typical mistakes</dt><dd><ul>"
                         + "".join(f"<li>{e(w)}: {e(h)}</li>" for w, h in x["hints"]) + "</ul></dd>")
        parts.append("</dl></section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_answer_key(exercises: list, out: str | Path) -> Path:
    """Write the key as ``.html`` or ``.ipynb`` (by *out*'s suffix); refuse the students' notebooks/ folder."""
    p = Path(out)
    parent = p.resolve().parent
    if parent == KIT_NOTEBOOKS or (parent / "00-Index.ipynb").exists():
        raise ExerciseError("answer keys stay out of the students' notebooks folder; write it elsewhere",
                            str(out))
    if p.suffix == ".ipynb":
        text = nbformat.writes(answer_key(exercises)) + "\n"
    elif p.suffix in (".html", ".htm"):
        text = answer_key_html(exercises)
    else:
        raise ExerciseError("write the key to a .html or .ipynb file", str(out))
    return _files.write_output(p, text, example="key.html")   # whole, or nothing
