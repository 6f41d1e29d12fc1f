"""Jobs written for one item in one mission: the lines a bot's plan says first.

An item's own jobs (``jobs.txt``) bend to a mission by its marks and slots, and read like
it ("Bungee Cord to boing to the pony"). A pair job is written for the item *and* the
mission together ("Trampoline to bounce over the rope"), four of them (JOBS_PER_PAIR), as
four plans of a round may tell one mission with the same items and no two say one job.

The files are ``pairs/*.txt`` beside the deck, each a run of missions::

    # comment
    == Get Past a Grumpy Bouncer
    Trampoline: to bounce over the rope; to boing in, waving; ...
    Umbrella: to twirl like a film star; to shade the bouncer; ...

Every job follows the item's name in a plan, so it starts as a phrase that does ("to",
"as", "for", "so"...). ``python -m engine.check_pairs [FILE]`` checks them all (or one
file) and says how much of the deck they cover.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.resources.abc import Traversable
from pathlib import Path

from engine.fits import FitError

PAIRS_DIR = "pairs"
JOBS_PER_PAIR = 4
JOB_MAX = 26  # characters: four items, their names and jobs fit a plan (PLAN_MAX, 160)
STARTS = ("to ", "as ", "for ", "so ", "in ", "on ", "with ", "because ", "until ",
          "while ", "like ", "under ", "over ", "inside ", "behind ", "full of ", "tied ",
          "filled ", "dressed ", "stuffed ", "strapped ", "held ", "worn ", "set ",
          "glued ", "hidden ", "balanced ", "propped ", "wrapped ", "aimed ", "pointed ",
          "at ", "up ", "round ", "around ", "across ", "into ", "onto ")
HEADER = "=="

PairJobs = dict[str, dict[str, tuple[str, ...]]]  # item -> task -> jobs, best first


def parse_pair_jobs(text: str, tasks: Iterable[str], items: Iterable[str],
                    filename: str = "pairs.txt", problems: list[str] | None = None
                    ) -> PairJobs:
    """One pairs file as ``{item: {task: jobs}}``; :class:`FitError` naming the line of
    anything malformed: an unknown mission or item, a job the plan cannot read after the
    item's name, one too long, the same job twice in a mission. With ``problems``, each is
    added there instead and its line left out (a writer sees them all at once)."""
    known_tasks, known_items = set(tasks), set(items)
    found: PairJobs = {}
    task: str | None = None
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line, where = raw.strip(), f"{filename}:{number}"
        try:
            if not line or line.startswith("#"):
                continue
            if line.startswith(HEADER):
                task = None  # until it is known
                task = _mission(line, where, known_tasks)
                seen.clear()
                continue
            if task is None:
                raise FitError(f"{where}: a job before the first '== Mission' line")
            item, jobs = _jobs(line, where, task, seen, known_items)
            found.setdefault(item, {})[task] = found.get(item, {}).get(task, ()) + jobs
        except FitError as error:
            if problems is None:
                raise
            problems.append(str(error))
    return found


def _mission(line: str, where: str, known_tasks: set[str]) -> str:
    task = line[len(HEADER):].strip()
    if task not in known_tasks:
        raise FitError(f"{where}: no mission called {task!r}")
    return task


def _jobs(line: str, where: str, task: str, seen: set[str],
          known_items: set[str]) -> tuple[str, tuple[str, ...]]:
    """One item's line: the item and its jobs, each checked (``seen``: this mission's)."""
    item, colon, rest = line.partition(":")
    item = item.strip()
    if not colon or item not in known_items:
        raise FitError(f"{where}: expected 'Item: job; job' with an item of the deck"
                       f" (got {item!r})")
    jobs = tuple(j.strip() for j in rest.split(";") if j.strip())
    if not jobs:
        raise FitError(f"{where}: {item} has no job")
    for job in jobs:
        if not job.startswith(STARTS):
            raise FitError(f"{where}: {job!r} does not read after '{item}' "
                           f"(start it with one of: to, as, for, so, ...)")
        if "{" in job or "}" in job:
            raise FitError(f"{where}: {job!r}: a pair job names its mission in words "
                           "(no {slots})")
        if len(job) > JOB_MAX:
            raise FitError(f"{where}: {job!r} is {len(job)} characters (at most "
                           f"{JOB_MAX}: four items and their jobs share a plan's 160)")
        if job.lower() in seen:
            raise FitError(f"{where}: {job!r} is said twice in {task}")
        seen.add(job.lower())
    return item, jobs


def load_pair_jobs(folder: Path | Traversable, tasks: Iterable[str], items: Iterable[str],
                   problems: list[str] | None = None) -> PairJobs:
    """Every ``pairs/*.txt`` beside a deck, merged; {} without the folder. With
    ``problems``, a malformed line is left out and said there (see :func:`parse_pair_jobs`)."""
    tasks, items = tuple(tasks), tuple(items)
    where = folder / PAIRS_DIR
    merged: PairJobs = {}
    if not where.is_dir():
        return merged
    for path in sorted(where.iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".txt"):
            continue
        text = path.read_text(encoding="utf-8")
        for item, by_task in parse_pair_jobs(text, tasks, items, path.name,
                                             problems).items():
            for task, jobs in by_task.items():
                mine = merged.setdefault(item, {})
                mine[task] = mine.get(task, ()) + jobs
    return merged


def coverage(pairs: PairJobs, tasks: Iterable[str], items: Iterable[str]) -> list[str]:
    """Lines for a writer: per mission, how many items have all their jobs
    (:data:`JOBS_PER_PAIR`), and which are short."""
    lines = []
    items = tuple(items)
    for task in tasks:
        short = [i for i in items if len(pairs.get(i, {}).get(task, ())) < JOBS_PER_PAIR]
        if len(short) == len(items):
            continue
        done = len(items) - len(short)
        lines.append(f"{task}: {done} of {len(items)} items"
                     + (f"; short: {', '.join(short)}" if short else ""))
    return lines
