"""Where exercises are found by id: the shipped library, teachers' files, the old numbering."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from .exercise import Exercise, ExerciseError
from .exercise import load_file as _load_file
from .exercise import loads as _loads
from ...frames import kit_frame

LIBRARY_DIR = Path(__file__).parent / "library"
"""The shipped exercises (``stsedu/lessons/exercises/library/*.yaml``)."""

OLD_IDS = {
    "01.1": "01.1", "01.2": "01.2", "01.3": "01.3",
    "02.1": "03.1", "02.2": "03.2", "02.3": "03.3",
    "03.1": "09.1", "03.2": "09.2",
    "04.1": "05.1", "04.2": "05.2",
    "05.1": "06.1", "05.2": "06.2", "05.3": "06.3",
    "06.1": "07.1", "06.2": "07.2",
    "07.1": "10.1", "07.2": "10.2", "07.3": "10.3",
    "08.1": "11.1", "08.2": "11.2",
    "09.1": "12.1", "09.2": "12.2",
    "10.1": "02.1", "10.2": "02.2",
    "11.1": "08.1",
    "12.1": "14.1",
}
"""Old exercise id (the numbering before the series was reordered) -> new id.

``get(old_id, old=True)`` looks one up; plain ``get`` also finds an old id
that no new exercise uses (``"04.1"`` -> ``"05.1"``)."""

_REGISTRY: dict[str, Exercise] = {}


def _library() -> list[Exercise]:
    out = [_load_file(p) for p in sorted(LIBRARY_DIR.glob("*.yaml"))]
    for e in out:
        e.shipped = True          # the practice set: answered in any kernel (see .modes)
    return out


def same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:  # pragma: no cover
        return a == b


def _read(path: Path) -> Exercise:
    """One file; a shipped exercise's file gives the shipped exercise itself."""
    for e in EXERCISES:
        if same_file(e.source, str(path)):
            return e
    return _load_file(path)


EXERCISES: list[Exercise] = _library()
"""The shipped exercises, in series order."""
for _e in EXERCISES:
    _REGISTRY[_e.id] = _e


def register(exercise: Exercise, replace: bool = False) -> Exercise:
    """Make *exercise* reachable with :func:`get`.

    An id already used by another file raises :class:`ExerciseError` unless
    *replace*; loading the same file again (re-running a cell) replaces it.
    """
    old = _REGISTRY.get(exercise.id)
    if old is not None and not replace and not same_file(old.source, exercise.source):
        raise ExerciseError(f"id {exercise.id!r} is already used by {old.source}; choose another id",
                            exercise.source, field="id")
    _REGISTRY[exercise.id] = exercise
    return exercise


def unregister(exercise_id: str) -> None:
    """Forget a loaded exercise (a shipped one cannot be forgotten)."""
    if any(e.id == exercise_id for e in EXERCISES):
        raise ExerciseError("a shipped exercise cannot be unregistered", exercise_id)
    _REGISTRY.pop(exercise_id, None)


def _files(path: Path) -> list[Path]:
    return sorted(list(path.glob("*.yaml")) + list(path.glob("*.yml")))


def load(path: str | Path, register_them: bool = True) -> list[Exercise]:
    """Read an exercise file, or every ``*.yaml`` file of a folder, and register them.

    Returns the exercises (in file-name order).  Raise :class:`ExerciseError`
    naming the file, line and field of the first invalid one, or the two files of an id used twice.
    """
    p = Path(path)
    try:
        is_dir, exists = p.is_dir(), p.exists()   # a pipe or a device: the bounded reader says which
        paths = _files(p) if is_dir else [p]
    except (OSError, ValueError) as e:   # a name too long, a NUL byte ...
        raise ExerciseError(f"cannot read it: {getattr(e, 'strerror', None) or e}", str(path)[:200]) from None
    if is_dir and not paths:
        raise ExerciseError("no exercise files (*.yaml) in this folder", str(path))
    if not exists:
        raise ExerciseError("no such file or folder", str(path))
    out = [_read(q) for q in paths]
    refuse_duplicates(out)
    if register_them:
        for e in out:
            register(e)
    return out


def refuse_duplicates(exercises: list[Exercise]) -> None:
    """Raise :class:`ExerciseError` if two files (not the same file twice) use one id."""
    first: dict[str, Exercise] = {}
    for e in exercises:
        old = first.setdefault(e.id, e)
        if old is not e and not same_file(old.source, e.source):
            raise ExerciseError(f"id {e.id!r} is already used by {old.source} (line {old.line_of('id')}); "
                                "give each exercise its own id", e.source, e.line_of("id"), "id")


def shipped_clash(e: Exercise) -> Exercise | None:
    """The shipped exercise whose id a teacher's *e* takes (None if *e* is shipped or its id is free)."""
    for s in EXERCISES:
        if s.id == e.id and s is not e and not same_file(s.source, e.source):
            return s
    return None


def clash_error(e: Exercise, shipped: Exercise) -> ExerciseError:
    return ExerciseError(f"id {e.id!r} is a shipped exercise's ({Path(shipped.source).name}); give yours "
                         "another id (\"T.1\"), or pass --override to replace the shipped one",
                         e.source, e.line_of("id"), "id")


def loads(text: str, source: str = "<exercise>", register_it: bool = True) -> Exercise:
    """Read one exercise from YAML text (and register it)."""
    ex = _loads(text, source=source)
    return register(ex) if register_it else ex


def get(exercise_id: str, old: bool = False) -> Exercise:
    """The exercise with this id (``"06.1"``, or a teacher's ``"T.1"`` once loaded).

    With *old* the id is read in the earlier numbering (:data:`OLD_IDS`).
    Raise KeyError listing the ids otherwise.
    """
    key = str(exercise_id)
    if old:
        if key not in OLD_IDS:
            raise KeyError(f"no exercise {key!r} in the old numbering; there were: {', '.join(OLD_IDS)}")
        key = OLD_IDS[key]
    elif key not in _REGISTRY and key in OLD_IDS:
        key = OLD_IDS[key]
    try:
        return _REGISTRY[key]
    except KeyError:
        raise KeyError(f"no exercise {exercise_id!r}; there are: {', '.join(_REGISTRY)}") from None


def all_exercises() -> list[Exercise]:
    """Every registered exercise: the shipped ones, then the loaded ones."""
    return list(_REGISTRY.values())


def for_notebook(notebook: str) -> list[Exercise]:
    """The exercises of one notebook (``"06"``)."""
    return [e for e in _REGISTRY.values() if e.notebook == notebook]


def select(ids: Iterable[str] | None = None, paths: Iterable[str | Path] | None = None,
           only: bool = False, override: bool = False) -> list[Exercise]:
    """The exercises of an assignment.  (Not registered: this is for the teacher's tools.)

    The pool is the shipped exercises plus those in *paths* (files or folders; a file given
    twice counts once); with *only*, just those in *paths*.  A teacher's id that a shipped
    exercise already uses is refused unless *override* (then the teacher's replaces it).
    The assignment is *ids* from the pool, in that order; without *ids*, the exercises of
    *paths* (or, with no *paths*, the shipped ones).
    """
    from ...api.arguments import as_list   # a single id or path (a string) is one
    paths = as_list(paths, "paths", "exercise files or folders") if paths is not None else None
    ids = as_list(ids, "ids", "exercise ids") if ids else ids
    mine: list[Exercise] = []
    for p in paths or []:
        for e in load(p, register_them=False):
            if not any(e is m or same_file(e.source, m.source) for m in mine):
                mine.append(e)
    refuse_duplicates(mine)
    for e in mine:
        clash = shipped_clash(e)
        if clash is not None and not only and not override:
            raise clash_error(e, clash)
    pool: dict[str, Exercise] = {} if only else {e.id: e for e in EXERCISES}
    pool.update({e.id: e for e in mine})
    if not ids:
        return mine if paths else list(EXERCISES)
    twice = [i for n, i in enumerate(ids) if i in ids[:n]]
    if twice:
        raise ExerciseError(f"{twice[0]} is given twice (an exercise counts once)", "--ids")
    out = []
    for i in ids:
        if i not in pool:
            known = ", ".join(pool) if len(pool) <= 40 else ", ".join(list(pool)[:40]) + ", ..."
            mine_too = "" if paths else "; an exercise of your own needs its file: --exercises my-exercises/"
            raise ExerciseError(f"no exercise {i!r} among {known}{mine_too}", "--ids")
        out.append(pool[i])
    return out


def library():
    """The shipped exercises as a DataFrame (same as :func:`catalog` before any teacher's are loaded)."""
    return _frame(EXERCISES)


def catalog():
    """Every registered exercise as a DataFrame: id, notebook, kind, points, question."""
    return _frame(all_exercises())


def _frame(exs):
    return kit_frame([{"id": e.id, "notebook": e.notebook, "kind": e.kind, "points": e.points,
                          "question": e.question} for e in exs],
                        columns=["id", "notebook", "kind", "points", "question"])
