"""Grades into nbgrader's gradebook: ``stsedu grade ... --nbgrader gradebook.db --assignment NAME``.

A teacher who keeps a course with nbgrader reads grades from its gradebook (``nbgrader export``,
the formgrader), so the class's grades go there, written with nbgrader's own API
(``nbgrader.api.Gradebook``): the assignment, one notebook, a grade cell per exercise named as
``stsedu nbgrader`` names its test cells (``check_<id>``, the exercise's points as its
``max_score``), and per student a submission whose grade cells hold the points the policy gave
(their automatic score; a teacher's manual score in the formgrader still wins, as in nbgrader).
A student the grading has no attempt from gets no submission (nbgrader exports them with 0 and no
timestamp, as a student who did not submit).  Grading again replaces the submissions written before.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from .exercise import ExerciseError
from .grading import RECORD, Grades
from .handout import slug


def grade_cell(exercise_id: str) -> str:
    """The grade cell of an exercise: the name ``stsedu nbgrader`` gives its test cell."""
    return f"check_{slug(exercise_id)}"


def gradebook_url(db: str | Path) -> str:
    text = str(db)
    return text if "://" in text else f"sqlite:///{Path(text).resolve()}"


def write_gradebook(grades: Grades, db: str | Path, assignment: str, notebook: str = "") -> str:
    """Write *grades* into the nbgrader gradebook *db* (a file or an SQLAlchemy URL) as *assignment*;
    returns a line saying how many students were written.  Refuses (ExerciseError, nothing
    written) an assignment whose grade cells are not these exercises'."""
    try:
        from nbgrader.api import Gradebook, MissingEntry
    except ImportError:
        raise ExerciseError("--nbgrader needs nbgrader: pip install nbgrader", "--nbgrader") from None
    if not assignment.strip():
        raise ExerciseError("--assignment: the assignment's name in the gradebook (e.g. test1)", "--assignment")
    if "://" not in str(db) and not Path(db).is_file():
        raise ExerciseError(f"{db}: no gradebook there (nbgrader's is gradebook.db in the course folder, "
                            "made by nbgrader quickstart or any nbgrader command)", "--nbgrader")
    nb = notebook or assignment
    cells = {grade_cell(e.id): e for e in grades.exercises}
    with warnings.catch_warnings(), Gradebook(gradebook_url(db)) as gb:
        # nbgrader 0.9's add_submission makes SQLAlchemy 2 warn of its autoflush ("not in session"):
        # nbgrader's own, harmless (the rows are added), and no concern of the teacher's terminal
        warnings.filterwarnings("ignore", message=".*not in session.*")
        try:
            existing = gb.find_assignment(assignment)
        except MissingEntry:
            existing = None
        if existing is not None:
            other = sorted(f"{c.notebook.name}/{c.name}" for n in existing.notebooks for c in n.grade_cells
                           if c.name not in cells or c.notebook.name != nb)
            if other:
                raise ExerciseError(f"{assignment}: this assignment in the gradebook has grade cells that are not "
                                    f"these exercises' ({', '.join(other[:5])}); give another --assignment name",
                                    "--assignment")
        gb.update_or_create_assignment(assignment)
        gb.update_or_create_notebook(nb, assignment)
        for name, e in cells.items():
            gb.update_or_create_grade_cell(name, nb, assignment, max_score=float(e.points), cell_type="code")
        written = []
        for r in grades.results:
            if r.status == "malformed" or r.source == f"{RECORD}: nothing recorded":
                continue
            gb.update_or_create_student(r.student)
            try:
                gb.remove_submission(assignment, r.student)      # grading again: this grading replaces it
            except MissingEntry:
                pass
            gb.add_submission(assignment, r.student)
            for name, e in cells.items():
                gb.find_grade(name, nb, assignment, r.student).auto_score = float(r.points.get(e.id, 0))
            written.append(r.student)
        gb.db.commit()
    return (f"{len(written)} students' grades written to nbgrader's gradebook {db} as assignment {assignment} "
            f"(nbgrader export --assignment {assignment})")
