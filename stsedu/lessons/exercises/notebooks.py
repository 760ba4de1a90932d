"""Notebooks made from exercises: an nbgrader source notebook, and the teacher's answer key.

* :func:`nbgrader_source` - an nbgrader *source* notebook for an assessed assignment: per
  exercise a locked cell with the question, the situation (as text) and the form of an answer;
  an answer cell (``solution: true``; the solution, computed by the simulator, sits between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION`` so that ``nbgrader generate_assignment``
  strips it); and a locked autograded test cell (``grade: true`` with the exercise's points)
  whose hidden test calls :func:`~stsedu.lessons.exercises.handout.autograde` with the teacher's copy
  of the exercise (``<course>/stsedu-key/<assignment>/``, never released).  The release carries
  no exercise file, no rule and no hint.
* :func:`answer_key` / :func:`answer_key_html` - every answer with its rule and
  the typical mistakes, for the teacher only (never under ``notebooks/``).
"""

from __future__ import annotations

import html
from pathlib import Path

import nbformat

from ... import files as _files
from . import kinds as K
from .exercise import ExerciseError
from .handout import KEY_DIR, public, question_markdown, refuse_parameters, refuse_shipped, slug
from .modes import grading

SCHEMA_VERSION = 3
KIT_NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def answer_variable(exercise_id: str) -> str:
    return f"answer_{slug(exercise_id)}"


def _meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    m = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA_VERSION,
         "solution": solution, "task": False}
    if grade:
        m["points"] = points
    return {"nbgrader": m}


def nbgrader_source(exercises: list, title: str = "StatefulSet exercises",
                    key: str = f"{KEY_DIR}/ps1") -> nbformat.NotebookNode:
    """An nbgrader source notebook (schema version 3 cell metadata) for *exercises*, assessed:
    the hidden tests read the exercises from *key* (relative to the course folder)."""
    refuse_shipped(exercises)
    refuse_parameters(exercises, "release them with stsedu exercise release --students roster.txt")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    total = sum(e.points for e in exercises)
    intro = (f"# {title}\n\nAssessed: {len(exercises)} questions, {total} points. For each one, read the "
             "situation, predict what the StatefulSet controller will do, and write your prediction in the "
             "answer cell below it (replace `raise NotImplementedError()`). Nothing is checked before you "
             "submit: your answers are graded by running the simulator afterwards.")
    cells = [nbformat.v4.new_markdown_cell(intro, metadata=_meta("intro", locked=True)),
             nbformat.v4.new_code_cell("import stsedu\nprint(stsedu.exercises.assessed())",
                                       metadata=_meta("setup", locked=True))]
    for e in exercises:
        s, var = slug(e.id), answer_variable(e.id)
        cells.append(nbformat.v4.new_markdown_cell(question_markdown(public(e)),
                                                   metadata=_meta(f"question_{s}", locked=True)))
        with grading():
            right = K.jsonable(e.expected_answer())
        solution = (f"# {var} = {e.answer_format}\n"
                    f"### BEGIN SOLUTION\n{var} = {right!r}\n### END SOLUTION")
        cells.append(nbformat.v4.new_code_cell(solution, metadata=_meta(f"answer_{s}", solution=True)))
        test = (f"# Checked when your notebook is graded: is {var} what the simulator does?\n"
                f"### BEGIN HIDDEN TESTS\nstsedu.exercises.autograde({e.id!r}, {var}, key={key!r})\n"
                f"### END HIDDEN TESTS")
        cells.append(nbformat.v4.new_code_cell(test, metadata=_meta(f"check_{s}", grade=True, locked=True,
                                                                     points=e.points)))
    nb.cells = cells
    return nb


# ================================================================ answer key


def _entries(exercises: list) -> list[dict]:
    with grading():
        return _key_entries(exercises)


def _key_entries(exercises: list) -> list[dict]:
    return [{"id": e.id, "points": e.points, "question": e.question, "answer": K.show(e.expected_answer()),
             "python": repr(K.jsonable(e.expected_answer())), "why": e.why, "source": e.source,
             "hints": [(K.show(w), h) for w, h in e.hints], "kind": e.kind} for e in exercises]


def _as_python(x: dict) -> str:
    """`` (as Python: ...)`` when the Python form differs from the shown one (a number is shown once)."""
    return f"  (as Python: `{x['python']}`)" if x["python"] != x["answer"] else ""


def answer_key(exercises: list, title: str = "Answer key") -> nbformat.NotebookNode:
    """The teacher's answer key as a notebook (markdown only; answers computed by the simulator)."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f"# {title}\n\nFor the teacher: every answer below was computed by replaying the exercise's "
        "scenario on the simulator. Keep this file out of the students' folder."))
    for x in _entries(exercises):
        lines = [f"## {x['id']} ({x['points']} point{'s' * (x['points'] != 1)})", "", x["question"], "",
                 f"**Answer:** {x['answer']}" + _as_python(x), "", f"**Rule:** {x['why']}"]
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
                     f"<dt>Answer</dt><dd>{e(x['answer'])}"
                     + (f" <code>{e(x['python'])}</code>" if x["python"] != x["answer"] else "") + "</dd>"
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
