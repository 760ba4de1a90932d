# blurb: Your exercise sheet: answer what the controller does next, check it with the simulator, and save your answers for your teacher.

# %% [markdown]
# # Exercises: your answer sheet
#
# In this notebook you will:
#
# - predict, for eight situations across the series, what the StatefulSet controller does next;
# - check each prediction against the simulator, which then tells you the rule (or gives a hint);
# - save your answers to a small file that your teacher can grade.
#
# None of these eight situations appears earlier in the series: each asks you to use a rule in a
# case you have not seen. This is **practice mode**: you may check as often as you like, but every
# answer you check is kept, with its time, and your teacher may count only your first attempt or
# take points off for retries. Think before you run.
#
# For each exercise: run the cell once to see the question and the pods. Then replace `None`
# with your prediction, in the form the comment shows, and run the cell again. Nothing is
# revealed before you answer.

# %%
import stsedu

# %% [markdown]
# ### 1. Identity (notebook 01)

# %%
ex = stsedu.exercises.get("01.4")
ex.show()
answer = None  # a list of pod names, like ["web-0"]
ex.check(answer)

# %% [markdown]
# ### 2. Storage (notebook 02)

# %%
ex = stsedu.exercises.get("02.3")
ex.show()
answer = None  # a whole number, like 7
ex.check(answer)

# %% [markdown]
# ### 3. Ordered scaling (notebook 03)

# %%
ex = stsedu.exercises.get("03.4")
ex.show()
answer = None  # a decision like ("create", "web-7") or ("wait", "web-7"), a list of them, or "nothing"
ex.check(answer)

# %% [markdown]
# ### 4. Rolling updates (notebook 05)

# %%
ex = stsedu.exercises.get("05.3")
ex.show()
answer = None  # a decision like ("create", "web-7") or ("wait", "web-7"), a list of them, or "nothing"
ex.check(answer)

# %% [markdown]
# ### 5. Partitions (notebook 06)

# %%
ex = stsedu.exercises.get("06.4")
ex.show()
answer = None  # a list of pod names, like ["web-0"]
ex.check(answer)

# %% [markdown]
# ### 6. OnDelete (notebook 07)

# %%
ex = stsedu.exercises.get("07.3")
ex.show()
answer = None  # a list of pod names, like ["web-0"]
ex.check(answer)

# %% [markdown]
# ### 7. Deletion and ownership (notebook 08)

# %%
ex = stsedu.exercises.get("08.2")
ex.show()
answer = None  # a list of decisions such as [("create", "web-0")], or "nothing"
ex.check(answer)

# %% [markdown]
# ### 8. Parallel pod management (notebook 09)

# %%
ex = stsedu.exercises.get("09.3")
ex.show()
answer = None  # a whole number, like 7
ex.check(answer)

# %% [markdown]
# ## Save your answers
#
# Write your name between the quotes, then run the cell: every answer you checked in this
# notebook, with each attempt, goes into `my-answers.json` (what that file already holds is kept,
# so you can save from several notebooks). It is not saved without your name. Hand that file to
# your teacher.

# %%
print(stsedu.exercises.save_answers("my-answers.json", student=""))  # your name in the quotes

# %% [markdown]
# ## Summary
#
# - Every exercise: `stsedu.exercises.get(id)`, `show()`, then `check(answer)`; the answer is
#   computed by running the simulator, so it always follows the controller's rules.
# - `stsedu.exercises.save_answers("my-answers.json", student=...)` keeps your predictions, every
#   attempt with its time.
# - The catalogue holds more exercises than these eight: `stsedu.exercises.catalog()` lists them all,
#   by notebook, and `stsedu.exercises.get(id)` opens any of them here.
