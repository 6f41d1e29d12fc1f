"""The deck's ratings file from people's ratings: ``engine/data/sense.txt``.

    python -m bench.sense            # writes engine/data/sense.txt from the two files here

``by-item.txt`` (eight raters, each an item at a time against every mission) and
``by-mission.txt`` (eight others, each a mission at a time against every item) rate how
readily a person links an item with a mission, 0-3; none of the sixteen saw the tags, the
fit or the code (``prompt-*.txt`` is all they were told). The ratings file holds the mean
of the two: two raters read the blind readers' answers better than either alone
(``docs/bots.md``, *People's ratings*). ``by-item-again.txt``, a third pass item by item,
read them no better and is kept only as the record.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cards import load_deck
from engine.fits import SENSE_FILE, format_ratings, parse_ratings

HERE = Path(__file__).resolve().parent
DATA = Path(__file__).resolve().parents[2] / "engine" / "data"
HEADER = """\
Mission Impractical: how readily people link each item with each mission, 0 to 3.
The mean of two raters a pair (bench/sense: one rated item by item, the other mission by
mission; neither saw the tags, the fit or the code). Written by 'python -m bench.sense';
change the ratings there, not here. A mission left out of an item's line: no link."""


def main() -> int:
    deck = load_deck()
    tasks, items = deck.task_names, deck.item_names
    by_item = parse_ratings((HERE / "by-item.txt").read_text(encoding="utf-8"), tasks, items,
                            "by-item.txt")
    by_mission = parse_ratings((HERE / "by-mission.txt").read_text(encoding="utf-8"), items,
                               tasks, "by-mission.txt")  # one line a mission
    mean = {(t, i): (by_item.get((t, i), 0) + by_mission.get((i, t), 0)) / 2
            for t in tasks for i in items}
    text = format_ratings(items, tasks, {k: v for k, v in mean.items() if v}, HEADER)
    (DATA / SENSE_FILE).write_text(text, encoding="utf-8")
    print(f"wrote {DATA / SENSE_FILE}: {sum(v > 0 for v in mean.values())} links of "
          f"{len(items)} items x {len(tasks)} missions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
