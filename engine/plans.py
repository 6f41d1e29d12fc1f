"""A bot's plan: the mission named, then each item with a job in it, in order, short.

"Mission Kitten: Ladder to climb up to the kitten, Pet Treats to treat the kitten,
Butterfly Net to net the kitten, and Pillow for a nap halfway through."

* **The mission** opens the plan, by its name or its goal ("Operation Kitten"), and its
  own last words may close it ("One happy kitten."): :func:`mission` reads both, with
  whom it fools and what a disguise passes as, from its line in ``jobs.txt``.
* **Each item's job** is written by hand for that item (``engine/data/jobs.txt``), each
  marked by the kind of mission it serves: a task by name, a kind (``down``, ``smuggle``)
  or a tag. An item takes its best job for the mission; when none fits, an honest line
  for its own use ("the Cactus, because nobody hugs a cactus"), never a wrong verb. A
  host's deck without hand-written jobs takes stock phrases by tag (:data:`JOBS`).
* **No stock phrase twice in a game** and **no two plans of a round alike**: a bot sees
  every plan told so far in the game (its :class:`~engine.rules.View` keeps them) and
  never says an opener, a job or a closer that one of them already said; its seat picks a
  different opener than the next seat's.
* **Short:** at most :data:`engine.text.PLAN_MAX` characters; when too long, the closer
  goes first, then the step words and the opener get shorter, then the mission's last
  words go, then a job gives way to a shorter one; the items always stay.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from engine.cards import TAGS, Deck
from engine.text import PLAN_MAX

# Jobs an item does for a tag; {obj} is the mission's goal ("the kitten").
JOBS: dict[str, tuple[str, ...]] = {
    "animal": ("as a buddy for {obj}", "as a furry sidekick", "to make friends",
               "to sniff things out", "to win over {obj}", "to ride to safety",
               "as a lookout", "to fetch help", "to herd {obj} home", "to make a new friend"),
    "catch": ("to scoop up {obj}", "to nab {obj}", "to catch whatever falls", "to trap {obj}",
              "to grab it and run", "to bag it up", "to net {obj}", "to hook it from afar",
              "to hold on tight", "to catch {obj} mid-air"),
    "cold": ("to keep my cool", "to freeze {obj} in place", "to chill things down",
             "to make it snow", "for an icy welcome", "to cool {obj} off",
             "to keep it from melting", "to make it slippery", "to cool everyone down",
             "to keep things frosty"),
    "disguise": ("as a disguise", "to look like a local", "to pass as a VIP",
                 "so nobody knows it's me", "to dress up as {obj}", "as my fake mustache",
                 "to blend right in", "to wear as a mask", "to look important",
                 "to fool {obj}"),
    "fire": ("to warm things up", "to toast it", "to melt {obj}", "for a cozy glow",
             "to cook up a storm", "to heat things up", "to light a campfire",
             "to roast a snack", "to thaw my toes", "to spice things up"),
    "food": ("as a snack bribe", "as a picnic", "to tempt {obj}",
             "for a snack break", "to keep my strength up", "as a peace offering",
             "to leave a tasty trail", "to snack on", "as a tasty bribe for {obj}",
             "to share with {obj}"),
    "heavy": ("to weigh it down", "to squash the problem", "to hold {obj} still",
              "as an anchor", "to flatten the obstacle", "to push with", "to hold it down",
              "to smash through", "to keep it steady", "to sink like a stone"),
    "height": ("to reach the top", "to get up high", "to climb over {obj}",
               "to see over everything", "to reach up high", "to get down again",
               "for a better view", "to climb up", "to bounce up high", "to float up"),
    "hide": ("to hide in", "to stay out of sight", "to hide from {obj}", "to duck behind",
             "as a secret hideout", "to cover my tracks", "to keep it under wraps",
             "to crawl inside", "to hide the evidence", "to vanish from view"),
    "light": ("to light the way", "to dazzle {obj}", "to signal the team",
              "to see in the dark", "to dazzle everyone", "for a dramatic spotlight",
              "to flash a message", "to shine on {obj}", "to glow like a ghost",
              "to spot the exit"),
    "lure": ("as bait", "to tempt {obj} over", "to distract {obj}", "to lead {obj} away",
             "as a shiny distraction", "to wave around", "to lure everyone off",
             "to dangle as bait", "to draw {obj} out", "to lay a trail"),
    "noise": ("to make a racket", "as a loud distraction", "to wake {obj}",
              "to drown out my footsteps", "to sound the alarm", "to scare {obj}",
              "for a drum roll", "to ring for help", "to honk at {obj}",
              "to play a victory tune"),
    "rope": ("to tie it up", "to swing across", "to lasso {obj}", "to pull {obj} along",
             "to climb down", "as a safety line", "to haul it home", "to tie {obj} down",
             "to tow it behind me", "to tie the knot"),
    "sharp": ("to cut through", "to pop it", "to poke {obj}", "to snip it free",
              "to carve an exit", "to slice a way in", "to poke a hole in it",
              "to cut a way out", "to chop a path", "to trim it to size"),
    "soft": ("for a soft landing", "as a cushion", "to tiptoe quietly", "to muffle the noise",
             "to tuck {obj} in", "as a pillow fort", "to wrap {obj} up", "to nap on",
             "to pad the fall", "to keep it cozy"),
    "speed": ("to zoom off", "for the getaway", "to outrun {obj}", "to race ahead",
              "to make a quick exit", "to go full speed", "to get there first",
              "to roll away fast", "to zip past {obj}", "to launch me forward"),
    "sticky": ("to stick it in place", "to glue it shut", "to gum up the works",
               "to make it stay put", "to stick to the wall", "as a sticky trap",
               "to patch things up", "to glue {obj} down", "to stick the landing",
               "to seal the cracks"),
    "water": ("to splash through", "to float across", "to soak {obj}",
              "to make a big splash", "to wash it away", "to paddle over",
              "to cool things off", "to squirt {obj}", "to swim for it", "to make a puddle"),
}
_ANY_JOB = ("just in case", "for moral support", "for style points", "as a lucky charm",
            "to confuse everyone", "because the plan said so", "as a backup plan",
            "to look busy")

# Openers name the mission. A plain one may open several plans of a game (for different
# missions); one with a flavour (its marker, e.g. "? Easy.") opens at most one.
OPENERS: tuple[tuple[str, str | None], ...] = (
    ("To {task}:", None), ("Mission: {Task}.", None), ("How to {task}:", None),
    ("{Task}? Easy.", "? Easy."), ("How I'd {task}:", "How I'd "),
    ("{Task}, my way:", ", my way:"), ("Right, {task}!", "Right, "),
    ("Watch me {task}:", "Watch me "), ("We {task} like this:", " like this:"),
    ("Here's how we {task}:", "Here's how we "), ("Step one of how to {task}:", "Step one"),
)
# Shorter openers, in the order they are tried when a plan is too long for a longer one.
_SHORT_OPENERS = ("For {obj}:", "Right, {obj}:", "Operation {Goal}:", "Okay, {obj}:",
                  "So, {obj}:", "Now, {obj}:")
_LAST_OPENER = "{Goal}:"  # the shortest, when nothing else fits
# Closers, each with whether it names whom the mission fools (only when it has someone).
_CLOSERS = ((". {Who} never saw it coming.", True), (". Nobody suspects a thing.", False),
            (". Ta-da!", False), (". What could go wrong?", False), (". Trust me.", False),
            (". Applause, please.", False), (". Simple.", False), (". Done!", False),
            (". Home for dinner.", False), (". Nailed it.", False))
# Lines a plan says on its own (a shrug, a closer naming no one): no job may say one too.
STOCK_LINES = (*_ANY_JOB, *(c.strip(". ") for c, _ in _CLOSERS if "{" not in c))
# An opener this short stays while a job can still get shorter ("Operation Kitten:").
_OPENER_KEEP = 20
_STEPS = (("first the ", ", then the ", ", the ", ", and last the "),
          ("the ", ", next the ", ", then the ", ", and finally the "),
          ("start with the ", ", add the ", ", then the ", ", and finish with the "),
          ("the ", ", the ", ". Then the ", ", and the "))
_SHORT_STEPS = ("the ", ", the ", ", the ", ", and the ")
_PUNCHES = ("to ", "as ", "so ", "for ")  # a last job that can stand alone: "Cactus? So I
# never lean left."
_BARE_STEPS = ("", ", ", ", ", ", and ")

_DETERMINERS = ("a", "an", "the", "your", "his", "her", "its")
# Goals a job may name ("to distract the spy"): creatures and people, not places or things.
_ANIMATE = {"bouncer", "spy", "kitten", "crocodiles", "dog", "chef", "whale", "penguins",
            "swarm", "pony", "dragon", "bear", "hamster", "giraffe", "sheep", "snowman",
            "ducklings", "baby", "parrot", "octopus", "grandpa", "cow", "seagulls", "ghost",
            "fish", "guard", "queen's"}
_STOP = {"from", "of", "in", "on", "to", "with", "past", "across", "over", "onto", "into",
         "back", "full", "without", "before", "dressed", "for", "off", "unseen", "as", "down",
         "out", "home", "cold"}
_PROPER = {"July"}


def goal(task: str) -> str:
    """The mission's goal as a noun phrase: "Rescue a Kitten From an Oak Tree" -> "the
    kitten"; "Fix Mom's Teapot Before She Sees" -> "mom's teapot"."""
    words = task.split()
    second = words[1].lower() if len(words) > 1 else ""
    if second and second not in _STOP and second not in _DETERMINERS \
            and not second.endswith("'s"):  # "Scare Seagulls Off Your Fries": seagulls
        phrase = []
        for w in words[1:]:
            if w.lower() in _STOP:
                break
            phrase.append(w.lower())
        return " ".join(phrase)
    start = next((k + 1 for k, w in enumerate(words[1:], 1)
                  if w.lower() in _DETERMINERS or w.endswith("'s")), None)
    if start is None:
        start = 1
        while start < len(words) - 1 and words[start].lower() in _STOP:
            start += 1
    determiner = words[start - 1].lower() if start > 1 else ""
    phrase = []
    for w in words[start:]:
        if w.lower() in _STOP and phrase:
            break
        phrase.append(w.lower())
    if determiner.endswith("'s"):
        return f"{determiner} {' '.join(phrase)}".strip()
    lead = ("the" if determiner in ("a", "an", "the") else
            determiner if determiner in _DETERMINERS else "")
    return f"{lead} {' '.join(phrase)}".strip()


def _render(template: str, goal_of: Mission) -> str:
    """``template`` with the mission's slots filled: {task} {Task} {obj} {Obj} {it} {who}
    {Who} {as} {pet} {Goal}."""
    return _fill(template, goal_of.task, goal_of.obj, goal_of.who, goal_of.as_, goal_of.pet,
                 goal_of.title, goal_of.thing)


@functools.lru_cache(maxsize=8192)
def _fill(template: str, task: str, obj: str, who: str, as_: str, pet: str,
          title: str, it: str) -> str:
    lower = " ".join(w if w in _PROPER else w.lower() for w in task.split())
    return template.format_map({"Task": task, "task": lower, "obj": obj,
                                "Obj": obj[:1].upper() + obj[1:], "who": who,
                                "Who": who[:1].upper() + who[1:], "as": as_, "pet": pet,
                                "Goal": title, "it": it or obj})


class _Said:
    """What the game's plans said, lowercased in one text, to look phrases up in."""

    def __init__(self, plans: Sequence[str]) -> None:
        self.text = "\n".join(plans).lower()

    def __contains__(self, phrase: str) -> bool:
        return phrase.strip(" .:!?,").lower() in self.text

    def add(self, phrase: str) -> None:
        self.text += "\n" + phrase.lower()


def _tags(deck: Deck, name: str) -> frozenset[str]:
    try:
        return deck.card(name).tags
    except KeyError:
        return frozenset()


_TAG_NAMES = TAGS
OWN = "any"  # a hand-written job's marker for the item's own use, in any mission
THING = "thing"  # the same, for a mission whose {it} is no creature ("to toast {it}")
ALL = "all"  # a hand-written job's marker for a use that bends to any mission ("to bat {it}
# back where it belongs"): better than the item's own use, worse than one for the mission
_SPARE = "\0"  # marks a job of a lesser pool, taken only when the plan is too long
SLOTS = ("obj", "it", "who", "as", "pet")  # what a job may name of its mission


# Words of a mission's name too vague to tell what it is about ("keep", "win").
_VAGUE = frozenset({"keep", "get", "win", "make", "without", "full", "great", "giant",
                    "tall", "big", "back", "past", "down", "off", "out", "home", "onto"})
# Words of a job that wanders off the mission: waving, snacking, cheering by the way.
_FILLER = frozenset({"wave", "waves", "waving", "snack", "snacks", "celebrate", "victory",
                     "cheer", "cheers", "crowd", "nap", "selfie", "photo", "party", "dance",
                     "luck", "style", "disco"})


@dataclass(frozen=True)
class Mission:
    """What a plan says about its mission: the goal ("the kitten"), whom it may lure,
    wake or hide from ("the chef", empty when nobody), what a disguise passes as ("a
    penguin", empty when none), the marks a job may carry to serve it (its tags, its
    kinds such as ``down``, its own name), the animal it is about ("the pony", empty
    when none) and how it ends, the plan's last words ("Still hot.", empty when unsaid)."""

    task: str
    obj: str
    who: str = ""
    as_: str = ""
    marks: frozenset[str] = frozenset()
    pet: str = ""
    done: tuple[str, ...] = ()  # its last words, any one of them ("Still hot.")
    it: str = ""  # the thing a job may handle ("the stage" for a talent show), else obj
    uses: tuple[str, ...] = ()  # jobs any item can do for it ("to wedge into the leak")

    @property
    def alive(self) -> bool:
        """Is what a job handles a creature ("the ducklings", not "the pie")?"""
        return self.thing in (self.who, self.pet) or self.thing.split()[-1] in _ANIMATE

    @property
    def thing(self) -> str:
        """What a job for any mission handles: ``it`` when the goal is no thing to hold."""
        return self.it or self.obj

    @property
    def title(self) -> str:
        """The goal as a name: "the royal dinner" -> "Royal Dinner"."""
        bare = re.sub(r"^(the|my|your|his|her|its|a|an) ", "", self.obj, flags=re.I)
        return " ".join(w[:1].upper() + w[1:] for w in bare.split())

    @functools.cached_property
    def core(self) -> frozenset[str]:
        """The words of what the mission is about: its name, goal, last words and the uses
        any item has in it ("Keep Ice Cream Cold in a Desert": cold, ice, shade, fan...)."""
        words = content_words(" ".join((self.task, self.obj, self.thing, *self.done,
                                        *self.uses)))
        return frozenset(w.removesuffix("s") if len(w) > 4 else w  # "snowballs": snowball
                         for w in words if w not in _VAGUE and w not in _FILLER)

    def wanders(self, job: str) -> bool:
        """Does ``job`` only wave, snack or cheer by the way ("to wave at the crowd"),
        saying no word of what the mission is about ("to wave a flag at the ship" does)?"""
        words = content_words(job)
        return bool(words & _FILLER) and not any(
            w == c or (len(c) >= 4 and w.startswith(c)) for w in words  # "cooler": cool
            for c in self.core)

    def fills(self, job: str) -> bool:
        """Has the mission all the slots ``job`` names?"""
        return all(f"{{{slot}}}" not in job or value
                   for slot, value in (("who", self.who), ("as", self.as_), ("pet", self.pet)))


def mission(deck: Deck, task: str) -> Mission:
    """The mission of ``task``: from its line in the deck's jobs file (``Task | obj: the
    kitten; who: the kitten; pet: the kitten; as: a penguin; kinds: down``), else read
    off its name."""
    said = deck.jobs.get(task, ())
    line = dict(said)
    need = _tags(deck, task)
    kinds = frozenset(k.strip() for k in line.get("kinds", "").split(",") if k.strip())
    marks = need | kinds | {task}
    if line.get("obj"):
        return Mission(task, line["obj"], line.get("who", ""), line.get("as", ""), marks,
                       line.get("pet", ""), tuple(v for k, v in said if k == "done"),
                       line.get("it", ""), tuple(v for k, v in said if k == "use"))
    obj = goal(task)
    animate = bool(obj) and obj.split()[-1] in _ANIMATE
    return Mission(task, obj, obj if animate else "", "", marks, obj if animate else "")


def item_jobs(deck: Deck, task: str, item: str) -> tuple[tuple[str, str], ...]:
    """An item's jobs for ``task``, best first, each with its mark: those written for the
    item in this very mission (:mod:`engine.pair_jobs`, marked by the task), then its own
    (``jobs.txt``)."""
    pairs = deck.pair_jobs.get(item, {}).get(task, ())
    return (*((task, job) for job in pairs), *deck.jobs.get(item, ()))


def _marks(marker: str) -> frozenset[str]:
    """A job's marker as marks: "height, rope" -> {"height", "rope"}."""
    return frozenset(m.strip() for m in marker.split(",") if m.strip())


def hand_written(ranked: Sequence[tuple[str, str]]) -> bool:
    """Are these an item's hand-written jobs (they have one for its own use)?"""
    return any(OWN in _marks(m) for m, _ in ranked)


ALL_RANK = 3  # the rank of a job for any mission


def _rank(mission: Mission, marks: frozenset[str]) -> int | None:
    """How well a job marked ``marks`` serves ``mission``: 0 written for it by name, 1 for
    one of its kinds, 2 for one of its tags, 3 for any mission; None when for none."""
    if mission.task in marks:
        return 0
    if marks & mission.marks - _TAG_NAMES:
        return 1
    if marks & mission.marks:
        return 2
    if ALL in marks or (THING in marks and not mission.alive):
        return ALL_RANK
    return None


def _written_pools(goal_of: Mission, ranked: Sequence[tuple[str, str]], said: _Said,
                   said_now: _Said) -> list[tuple[list[str], _Said, int]]:
    """Where an item's hand-written jobs are looked for, in order, each with the plans a
    job must not be in and among how many of the first a bot picks: the best job that
    serves the mission; one of the item's own two; what else it does (naming nothing of
    a mission it does not serve); a shrug; last, any job not said this round."""
    scored = [(r, r == 0 and goal_of.wanders(job), k, job)  # one that wanders, last
              for k, (m, job) in enumerate(ranked)
              if (r := _rank(goal_of, _marks(m))) is not None and goal_of.fills(job)]
    best = [job for *_, job in sorted(scored)]
    # the mission's own uses after the item's two best that bend to any mission
    bent = [k for k, (r, *_) in enumerate(sorted(scored)) if r == ALL_RANK]
    at = bent[1] + 1 if len(bent) > 1 else len(best)
    best[at:at] = [u for u in goal_of.uses if u not in best]
    own = [job for m, job in ranked if OWN in _marks(m) and goal_of.fills(job)]
    plain = [job for m, job in ranked if job not in best and job not in own
             and "{" not in job and _marks(m) <= _TAG_NAMES]
    return [(best, said, 1), (own, said, 2), (plain, said, 1), (list(_ANY_JOB), said, 2),
            (best + own + plain, said_now, 1)]


def _jobs(deck: Deck, task: str, items: Sequence[str], rng: random.Random,
          said: _Said, said_now: _Said, share: int = PLAN_MAX) -> list[list[str]]:
    """Jobs each item could do, the chosen one first, each unsaid in the game. An item's
    hand-written jobs (``jobs.txt``) for this mission first: those written for it by name,
    for its kind, for what it needs; else one for the item's own use (marked ``any``); else
    a shrug ("for moral support"). Only when all are said: a job said in an earlier round
    (never a shrug, never one of this round). An item without hand-written jobs takes the
    generated ones of a host's deck (or the pools of its tags). A job that bends to any
    mission and is longer than ``share`` (an item's share of the plan) comes after one
    that is not, so that a long plan keeps its jobs for the mission."""
    need = _tags(deck, task)
    goal_of = mission(deck, task)
    animate = bool(goal_of.who)
    table = {job: k for k, (_, job) in enumerate(deck.jobs.get(task, ()))}

    def by_mission(pool: list[str]) -> list[str]:
        """Best first for the item and the mission together: its place in ``pool`` (the
        item's order) plus its place among the mission's jobs (last when not there)."""
        if not table:
            return pool
        return sorted(pool, key=lambda j: pool.index(j) + table.get(j, len(table)))

    goal_words = content_words(goal_of.obj) | content_words(goal_of.thing)
    # the round's plans are about the same items: "to block the snowballs" said by one,
    # not "to block the snowballs with" by another
    mine = [*(_render(j, goal_of) for item in items for _, j in item_jobs(deck, task, item)),
            *goal_of.uses]
    chosen: list[list[str]] = []
    taken = _Said(())  # this plan's jobs: none inside another either
    taken_list: list[str] = []
    for item in items:
        offer = _tags(deck, item)
        ranked = list(item_jobs(deck, task, item))
        written = hand_written(ranked)
        pools: list[tuple[list[str], _Said, int]]
        if written:
            pools = _written_pools(goal_of, ranked, said, said_now)
        else:
            if not ranked:  # a deck without jobs.txt: the pools of its tags, shuffled
                ranked = [(t, j) for t in sorted(offer) for j in JOBS[t]]
                rng.shuffle(ranked)
            mine = by_mission([j for t, j in ranked if t in need])
            anyone = [j for t in sorted(offer & need) for j in JOBS[t] if j not in mine]
            rng.shuffle(anyone)
            anyone = by_mission(anyone)
            other = by_mission([j for t, j in ranked if t not in need])
            pools = [(pool, fresh_in, 2) for pool, fresh_in in (  # one of the two best
                (mine, said), (anyone, said), (other, said), (list(_ANY_JOB), said),
                (mine + other, said_now))]
        top = {_render(j, goal_of) for m, j in ranked
               if (r := _rank(goal_of, _marks(m))) is not None and r < ALL_RANK}
        options: list[str] = []
        # the best job saying no word again; else naming the goal once more rather than
        # a job without the mission; else the lesser pools; last, any word again. A job
        # written for this very mission says a word again ("cool" twice) rather than
        # give way to one that bends to any mission ("Pogo Stick to keep the sun off it")
        passes = [(GOAL_TIMES, pools[0]), (len(items), pools[0]),
                  *((GOAL_TIMES, p) for p in pools[1:]), *((0, p) for p in pools)]
        if written:
            own_mission = {j for m, j in ranked if task in _marks(m)}
            named_pool = ([j for j in pools[0][0] if j in own_mission], *pools[0][1:])
            passes[:0] = [(GOAL_TIMES, named_pool), (len(items), named_pool),
                          (0, named_pool)]
        for strict, (pool, fresh_in, among) in passes:
            if not written:
                pool = [j for j in pool if animate or "{obj}" not in j]
            fresh = [_render(j, goal_of) for j in pool]
            fresh = [j for j in fresh if j not in fresh_in and j not in taken
                     and not any(t in j for t in taken_list)
                     and not (strict and repeats(j, taken_list, goal_words, strict))
                     and not any(k != j and k in j and k in said_now for k in mine)]
            if fresh:
                if written:
                    fresh.sort(key=lambda j: j not in top and len(j) > share)
                first = rng.randrange(min(among, len(fresh)))
                options = [fresh[first], *fresh[:first], *fresh[first + 1:]]
                if written:  # when too long: the item's own, shorter, last
                    options += [_SPARE + j for lesser, _, _ in pools[1:3] for j in
                                (_render(j, goal_of) for j in lesser)
                                if j not in options and j not in said and j not in taken]
                break
        for job in options[:1]:
            taken.add(job)
            taken_list.append(job.lower())
        chosen.append(options)
    return chosen


# Words too small to count as said twice in a plan ("the", "with").
_SMALL = frozenset({"the", "and", "for", "with", "into", "onto", "from", "off", "out", "all",
                    "its", "it's", "over", "own", "some", "then", "too", "very", "one",
                    "like", "just", "but", "not", "our", "your", "can", "them", "they",
                    "this", "that", "who", "what", "when"})
GOAL_TIMES = 3  # a plan's jobs may name the mission's goal this often


_WORD = re.compile(r"[a-z][a-z'-]+")


@functools.lru_cache(maxsize=16384)  # the same jobs are weighed again and again
def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that a plan should not say twice: "to bounce up high" ->
    {"bounce", "high"}."""
    return frozenset(w.removesuffix("'s") for w in _WORD.findall(text.lower())
                     if len(w) > 2 and w not in _SMALL)


def repeats(job: str, jobs: Sequence[str], goal_words: AbstractSet[str] = frozenset(),
            goal_times: int = 0) -> bool:
    """Would ``job`` say a word again that one of ``jobs`` said ("up high" twice), or name
    the goal more than :data:`GOAL_TIMES` times in the plan?"""
    words = content_words(job)
    said = [content_words(j) for j in jobs]
    if words - goal_words & set().union(*said):
        return True
    return bool(words & goal_words) and \
        sum(bool(w & goal_words) for w in said) >= (goal_times or GOAL_TIMES)


def _sentence(opener: str, steps: Sequence[str], items: Sequence[str],
              jobs: Sequence[str | None], closer: str, punch: bool = False) -> str:
    """The plan's text; with ``punch``, its last item gets a beat of its own: "..., Mop to
    wipe the grease away. Squeaky Toy? To squeeze for courage." (never longer)."""
    if len(items) == 1:
        steps = (steps[0],)
    else:
        steps = (steps[0], *[steps[1 + k % 2] for k in range(len(items) - 2)], steps[-1])
    last = jobs[-1]
    punch = punch and len(items) > 2 and last is not None and last.startswith(_PUNCHES)
    listed = len(items) - punch  # the items of the list (all but a beat's)
    body = "".join(f"{step}{item}" + (f" {job}" if job else "") for step, item, job in
                   zip(steps[:listed], items[:listed], jobs[:listed], strict=True))
    if punch:
        assert last is not None
        body += f". {items[-1]}? {last[:1].upper()}{last[1:]}"
    if not opener or opener.endswith((".", "!", "?")):
        body = body[:1].upper() + body[1:]
    if closer == "." and body.endswith(("!", "?", ".")):  # a job that ends with a shout
        closer = ""
    return f"{opener} {body}{closer}".strip()


def plan_text(deck: Deck, task: str, items: Sequence[str], rng: random.Random,
              said: Sequence[str] = (), seat: int = 0, said_now: Sequence[str] = ()) -> str:
    """A short, silly plan (at most 160 characters) for ``task`` that gives every item a
    job, in order. ``said`` are the plans told so far in the game, ``said_now`` those of
    this round (among them): no opener, closer or shrug of theirs comes back, nor a job
    unless the item has no other; ``seat`` makes two seats open differently."""
    if not items:
        return f"I'll improvise: {task}"[:PLAN_MAX]
    goal_of = mission(deck, task)
    said_game, said_round = _Said(said), _Said(said_now)
    start = seat % len(OPENERS)
    openers = [_render(o, goal_of) for o, marker in OPENERS[start:] + OPENERS[:start]
               if marker is None or marker not in said_game]
    openers = [o for o in openers if o not in said_game]
    # short openers vary from round to round, and from seat to seat within a round (the
    # seats' plans are written at once, none seeing another's)
    turn = (sum(map(ord, "".join(items))) + seat) % len(_SHORT_OPENERS)
    shorts = [o for o in (_render(o, goal_of) for o in
                          (*_SHORT_OPENERS[turn:], *_SHORT_OPENERS[:turn]))
              if o not in said_game]
    # a round's plans open with different words ("So, the socks:", then not "So, my fries:"),
    # and a game's with the words it has used least ("Right, the pie:" not a third time)
    begun = {plan.split(" ", 1)[0] for plan in said_now if plan}
    opened = Counter(plan.split(" ", 1)[0] for plan in said if plan)
    shorts.sort(key=lambda o: (o.split(" ", 1)[0] in begun, opened[o.split(" ", 1)[0]]))
    shorts.append(_render(_LAST_OPENER, goal_of))  # the mission's bare name: no stock
    # phrase, said again rather than give up a job written for the mission
    opener = openers[0] if openers else shorts[0]
    closers = [c for c in (_render(c, goal_of) for c, needs_who in _CLOSERS
                           if goal_of.who or not needs_who) if c not in said_game]
    closer = rng.choice(closers) if closers else "."
    endings = [f". {done}" for done in goal_of.done if f". {done}" not in said_game]
    ending = endings[seat % len(endings)] if endings else ""  # the mission's own last
    if ending:  # words, each once a game
        closer = ending
    steps = list(rng.choice(_STEPS))
    fixed = len(_sentence(_render(_LAST_OPENER, goal_of), _BARE_STEPS, items,
                          [None] * len(items), "."))
    options = _jobs(deck, task, items, rng, said_game, said_round,
                    (PLAN_MAX - fixed) // len(items) - 1)
    named = {_render(j, goal_of) for item in items for m, j in item_jobs(deck, task, item)
             if task in _marks(m)}  # written for this mission by name (pair_jobs)
    title = goal_of.title.lower()
    jobs: list[str | None] = [o[0] if o else None for o in options]
    used: set[str | None] = set(jobs)
    goal_words = content_words(goal_of.obj) | content_words(goal_of.thing)
    spare = False  # may a job give way to a lesser one that is shorter?
    punch = bool(turn % 2)  # half the plans, by seat and round, end on a beat of their own
    while True:
        text = _sentence(opener, steps, items, jobs, closer, punch)
        if len(text) <= PLAN_MAX:
            return text
        # the longest job that has a shorter one to give way to, else the longest; a job
        # written for this mission by name gives way to another such first, and to a
        # lesser one last
        by_length = sorted(range(len(jobs)), key=lambda k: -len(jobs[k] or ""))
        longest, shorter = by_length[0], list[str]()
        found: list[tuple[int, list[str]]] = []
        for times in (GOAL_TIMES, len(jobs)):  # the goal named once more rather than a
            found = [(k, alt) for k in by_length  # job without it
                     if (alt := _shorter(options[k], jobs, k, used, spare, goal_words, times))]
            if found:
                break
        if found:
            longest, shorter = min(found, key=lambda f: (
                f[1][0] not in named, jobs[f[0]] in named, found.index(f)))
        # the next opener in order of preference that is shorter than this one
        shorter_opener = next((o for o in (*openers, *shorts) if len(o) < len(opener)), None)
        if closer not in (".", ending):
            closer = "."
        elif steps not in (list(_SHORT_STEPS), list(_BARE_STEPS)):
            steps = list(_SHORT_STEPS)
        elif shorter_opener and len(opener) > _OPENER_KEEP:
            opener = shorter_opener
        elif steps != list(_BARE_STEPS):
            steps = list(_BARE_STEPS)
        elif opener and closer == ending and len(text) - len(opener) <= PLAN_MAX \
                and title in " ".join(j or "" for j in jobs).lower():
            opener = ""  # a job names the goal: the mission's last words rather than a title
            # ("..., and Cooler to pack with dry ice. Not a drip.")
        elif closer != ".":
            closer = "."
        elif opener and shorter and shorter[0] not in named and jobs[longest] in named \
                and title in " ".join(j or "" for j in jobs).lower():
            opener = ""  # a job names the mission: the plan goes without a title rather
            # than give up a job written for it ("Saddle to ride the sheep there, ...")
        elif shorter and shorter[0] not in named and jobs[longest] in named \
                and shorter_opener:
            opener = shorter_opener  # a shorter title ("Breakfast:") rather than give up a
            # job written for the mission ("Fake Mustache to fry the eggs on")
        elif shorter:  # the next best job that is shorter; among the lesser ones, the
            over = len(text) - PLAN_MAX  # best that fits at once, so that one goes, not all
            fits = [o for o in shorter if len(jobs[longest] or "") - len(o) >= over]
            jobs[longest] = (fits or [min(shorter, key=len)])[0] if spare else shorter[0]
            used.add(jobs[longest])
        elif shorter_opener:
            opener = shorter_opener
        elif not spare:
            spare = True
        elif any(jobs):
            jobs[longest] = None
        elif opener:
            opener = ""
        else:
            return text.strip()[:PLAN_MAX]


def _shorter(options: Sequence[str], jobs: Sequence[str | None], k: int,
             used: set[str | None], spare: bool, goal_words: AbstractSet[str],
             goal_times: int = 0) -> list[str]:
    """The jobs item ``k`` could do instead that are shorter than its own, best first:
    none said in the plan, none inside another job of it, no lesser one unless ``spare``."""
    others = [j.lower() for n, j in enumerate(jobs) if j and n != k]
    found = []
    for option in options:
        job = option.lstrip(_SPARE)
        if (spare or not option.startswith(_SPARE)) and len(job) < len(jobs[k] or "") \
                and job not in used and not any(job.lower() in j or j in job.lower()
                                                for j in others) \
                and not repeats(job, others, goal_words, goal_times or GOAL_TIMES):
            found.append(job)
    return found


def plan_names_every_item(plan: str, item_names: Sequence[str]) -> bool:
    """Does ``plan`` mention each of the items (what ``simulate`` counts)?"""
    return all(item in plan for item in item_names)
