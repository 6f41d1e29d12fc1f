"""A second, independent player that reads the cards as people do: by their words.

It never looks at the tags the bots use (:mod:`engine.cards`). It knows the card names and
``engine/data/links.txt``, a hand-written list of what a person thinks of on reading a word
("ladder: climb, high, reach"). A task and an item are linked by the words they share once
each is widened that way (a plain count of shared words: weighting rare words more read
worse). That makes it:

* a guesser that measures whether the bots' leads pick items whose link people can see
  (``simulate`` prints how often it finds a bot lead's task), and
* a lead that picks by meaning, to check that the bots also read a person well.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from importlib import resources

STOPWORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "to", "for", "from", "with", "your", "its", "at",
    "across", "over", "into", "onto", "off", "his", "her", "by", "up", "down", "without",
    "and", "out", "full", "no", "back", "as", "is", "it", "she",
})

_WORD = re.compile(r"[a-z][a-z'-]*")


class LinksError(Exception):
    """A links file is malformed; the message names the line and the problem."""


def parse_links(text: str, filename: str = "links.txt") -> dict[str, frozenset[str]]:
    """``word: linked, words`` lines as a mapping (keys may be two-word phrases)."""
    links: dict[str, frozenset[str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, rest = line.partition(":")
        words = [w.strip().lower() for w in rest.split(",") if w.strip()]
        if not sep or not key.strip() or not words:
            raise LinksError(f"{filename}:{number}: expected 'word: linked, words'")
        links[key.strip().lower()] = frozenset(stem(w) for w in words)
    return links


@functools.cache
def default_links() -> dict[str, frozenset[str]]:
    text = (resources.files("engine") / "data" / "links.txt").read_text(encoding="utf-8")
    return parse_links(text)


def stem(word: str) -> str:
    """A crude plural-free form: "cookies" and "cookie" read the same."""
    word = word.lower().removesuffix("'s")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words_of(name: str) -> list[str]:
    """The words of a card name that carry meaning, lowercased."""
    return [w.removesuffix("'s") for w in _WORD.findall(name.lower())
            if w.removesuffix("'s") not in STOPWORDS]


class PlainReader:
    """Links tasks to items through their words (see the module docstring)."""

    def __init__(self, links: dict[str, frozenset[str]] | None = None) -> None:
        self.links = default_links() if links is None else links
        self._phrases = [k for k in self.links if " " in k]

    @functools.lru_cache(maxsize=4096)  # noqa: B019 (one reader per deck, kept for the run)
    def concepts(self, name: str) -> frozenset[str]:
        """The card's own words and what each of them brings to mind."""
        found: set[str] = set()
        lowered = name.lower()
        for phrase in self._phrases:
            if phrase in lowered:
                found |= self.links[phrase]
        for word in words_of(name):
            found.add(stem(word))
            found |= self.links.get(word, self.links.get(stem(word), frozenset()))
        return frozenset(found)

    def link(self, task: str, item: str) -> float:
        """How strongly a person would tie ``item`` to ``task``: the words the two bring
        to mind in common (0: no link at all)."""
        return float(len(self.concepts(task) & self.concepts(item)))

    def scores(self, tasks: Sequence[str], items: Sequence[str]) -> list[float]:
        """Each task's summed link to the items down so far."""
        return [sum(self.link(t, i) for i in items) for t in tasks]

    def guess(self, tasks: Sequence[str], items: Sequence[str]) -> list[int]:
        """The cards (1-4) of the tasks the items point to most, best first; ties share."""
        scores = self.scores(tasks, items)
        top = max(scores)
        return [k + 1 for k, s in enumerate(scores) if math.isclose(s, top)]

    def pick(self, tasks: Sequence[str], secret: int, column: Sequence[str],
             chosen: Sequence[str]) -> list[int]:
        """Rows of ``column`` a lead reading by meaning would choose for card ``secret``:
        the item that ties to the secret task most, ahead of the decoys so far."""
        so_far = self.scores(tasks, chosen)

        def margin(item: str) -> float:
            after = [s + self.link(t, item) for s, t in zip(so_far, tasks, strict=True)]
            own = after[secret - 1]
            decoy = max(a for k, a in enumerate(after) if k != secret - 1)
            return own - decoy + 0.25 * self.link(tasks[secret - 1], item)

        margins = [margin(item) for item in column]
        best = max(margins)
        return [r for r, m in enumerate(margins) if math.isclose(m, best)]
