"""A class's record on the teacher's side (issue #42): ``stsedu class add-students``, ``serve``,
``export``; ``stsedu grade --class`` grades from it.

* :mod:`.record` - the students, their tokens and every attempt, in a database (SQLite by
  default, any SQLAlchemy URL for a larger class);
* :mod:`.server` - a small HTTP service (one asyncio event loop, standard library only) that
  records each attempt a student's notebook posts, timed by its own clock, once per attempt id;
* :mod:`.cli` - the ``stsedu class`` commands.

The kernel's side, which posts, is :mod:`stsedu.lessons.exercises.posting` (standard library only).
"""
