# blurb: A classroom set: every exercise of the series in one place, with checks and hints (teachers: solutions).

# %% [markdown]
# # Exercises: a classroom set
#
# In this notebook you will:
#
# - find every predict-then-check exercise of the series in one place;
# - check your predictions and get a hint when they are off;
# - (teachers) show the solutions.
#
# Each exercise builds a small cluster, asks what the controller will do, and compares your
# answer with what the simulator then does. Answers can be a decision like
# `("delete", "web-2")` or `"delete web-2"`, a list of pod names, a number, or `True`/`False`.

# %%
import stsedu

stsedu.exercises.catalog()

# %% [markdown]
# ## How to answer
#
# `show()` prints the question and the pods; `check(answer)` compares. Try exercise 02.2:

# %%
ex = stsedu.exercises.get("02.2")
ex.show()

# %% [markdown]
# A wrong prediction gets a hint, not just a no:

# %%
ex.check(("delete", "web-1"))

# %% [markdown]
# ## Your answers
#
# Fill in the dictionary (leave `None` where you have no answer yet) and run the check.

# %%
answers = {e.id: None for e in stsedu.exercises.EXERCISES}
answers["02.2"] = ("delete", "web-2")
answers["03.1"] = 4

# %% [markdown]
# The check of every exercise at once:

# %%
for exercise_id, answer in answers.items():
    print(stsedu.exercises.get(exercise_id).check(answer).message[:110])

# %% [markdown]
# ## For teachers
#
# `teacher_mode()` (or the environment variable `STSEDU_TEACHER=1` before starting
# JupyterLab) lets `solution()` reveal each answer with its rule. Without it:

# %%
stsedu.exercises.get("05.1").solution()

# %% [markdown]
# The exercises are defined in `stsedu/exercises.py`: to write your own, copy one of them; its
# answer is computed by running the simulator, so it cannot drift from the controller's rules.
# Scenario files (`stsedu.scenarios`) are the other way to hand out a run.

# %% [markdown]
# ## Summary
#
# - Every exercise: `stsedu.exercises.get(id)`, then `show()` and `check(answer)`.
# - Answers are computed by the simulator; hints explain the rule.
# - Teachers: `stsedu.exercises.teacher_mode()` and `solution()`.
