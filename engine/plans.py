"""A bot's plan: the mission named, then each item with a job in it, in order, short.

"Operation Kitten: first the Ladder to reach the branch, then the Pet Treats to tempt the
kitten, the Butterfly Net to scoop up the kitten, and last the Pillow for a soft landing."

* **The mission** opens the plan, by its name or its goal (the noun after its verb).
* **Each item's job** comes from what the item offers that the mission needs (the tags
  they share); an item that shares none gets a job from what it offers anyway (the
  Cowbell makes a racket), which is where most of the laughs come from.
* **No stock phrase twice in a game** and **no two plans of a round alike**: a bot sees
  every plan told so far in the game (its :class:`~engine.rules.View` keeps them) and
  never says an opener, a job or a closer that one of them already said; its seat picks a
  different opener than the next seat's.
* **Short:** at most :data:`engine.text.PLAN_MAX` characters; when too long, the closer
  goes first, then the opener gets shorter, then the longest jobs; the items always stay.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence

from engine.cards import Deck
from engine.text import PLAN_MAX

# Jobs an item does for a tag; {obj} is the mission's goal ("the kitten").
JOBS: dict[str, tuple[str, ...]] = {
    "animal": ("as a buddy for {obj}", "as a furry sidekick", "to make friends",
               "to sniff things out", "to win over {obj}", "to ride to safety",
               "as a lookout", "to fetch help", "to herd {obj} home", "to charm the guards"),
    "catch": ("to scoop up {obj}", "to nab {obj}", "to catch whatever falls", "to trap {obj}",
              "to grab the prize", "to bag the loot", "to net {obj}", "to hook it from afar",
              "to hold on tight", "to catch {obj} mid-air"),
    "cold": ("to keep my cool", "to freeze {obj} in place", "to chill things down",
             "to make it snow", "for an icy welcome", "to cool {obj} off",
             "to stop the melting", "to ice the floor", "to make a snowball",
             "to keep the treats frozen"),
    "disguise": ("as a disguise", "to look like a local", "to pass as a VIP",
                 "so nobody knows it's me", "to dress up as {obj}", "as my fake mustache",
                 "to blend right in", "to wear as a mask", "to look important",
                 "to fool {obj}"),
    "fire": ("to warm things up", "to toast it", "to melt {obj}", "for a cozy glow",
             "to cook up a storm", "to heat things up", "to light a campfire",
             "to roast a snack", "to thaw my toes", "to spice things up"),
    "food": ("as a snack bribe", "to feed the guards", "to tempt {obj}",
             "for a picnic break", "to keep my strength up", "as a peace offering",
             "to leave a tasty trail", "to snack on", "as a tasty bribe for {obj}",
             "to share with {obj}"),
    "heavy": ("to weigh it down", "to squash the problem", "to hold {obj} still",
              "as an anchor", "to flatten the obstacle", "to push with", "to block the door",
              "to smash through", "to hold the door open", "to sink like a stone"),
    "height": ("to reach the top", "to get up high", "to climb over {obj}",
               "to see over everything", "to reach the high branch", "to get down again",
               "for a better view", "to climb up", "to bounce up high", "to float up"),
    "hide": ("to hide in", "to stay out of sight", "to hide from {obj}", "to duck behind",
             "as a secret hideout", "to cover my tracks", "to keep it under wraps",
             "to crawl inside", "to hide the evidence", "to vanish from view"),
    "light": ("to light the way", "to dazzle {obj}", "to signal the team",
              "to see in the dark", "to blind the guards", "for a dramatic spotlight",
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
    "sharp": ("to cut through", "to pop it", "to poke {obj}", "to snip the ropes",
              "to carve an exit", "to slice a way in", "to prick the balloon",
              "to saw through the bars", "to chop a path", "to trim the hedge"),
    "soft": ("for a soft landing", "as a cushion", "to tiptoe quietly", "to muffle the noise",
             "to tuck {obj} in", "as a pillow fort", "to wrap {obj} up", "to nap on",
             "to pad the fall", "to keep it cozy"),
    "speed": ("to zoom off", "for the getaway", "to outrun {obj}", "to race ahead",
              "to make a quick exit", "to go full speed", "to get there first",
              "to roll away fast", "to zip past {obj}", "to launch me forward"),
    "sticky": ("to stick it in place", "to glue it shut", "to gum up the works",
               "to make it stay put", "to stick to the wall", "as a sticky trap",
               "to patch the leak", "to glue {obj} down", "to stick the landing",
               "to seal the cracks"),
    "water": ("to splash through", "to float across", "to soak {obj}",
              "to make a big splash", "to wash it away", "to paddle over",
              "to put out the fire", "to squirt {obj}", "to swim for it", "to fill the moat"),
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
_SHORT_OPENERS = ("Operation {Goal}:", "The {Goal} job:", "Mission {Goal}:", "{Goal} plan:",
                  "Project {Goal}:", "Code name {Goal}:", "{Goal}? Sorted:", "Target: {obj}.",
                  "{Goal}, solved:", "For {obj}:", "About {obj}:", "Re: {obj}.")
_CLOSERS = (". {Obj} never saw it coming.", ". Nobody suspects a thing.", ". Ta-da!",
            ". What could go wrong?", ". Trust me.", ". Applause, please.", ". Simple.",
            ". Done!", ". Home for dinner.", ". Nailed it.")
_STEPS = (("first the ", ", then the ", ", the ", ", and last the "),
          ("the ", ", next the ", ", then the ", ", and finally the "),
          ("start with the ", ", add the ", ", then the ", ", and finish with the "))
_SHORT_STEPS = ("the ", ", the ", ", the ", ", the ")
_BARE_STEPS = ("", ", ", ", ", ", ")

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


@functools.lru_cache(maxsize=8192)
def _render(template: str, task: str, obj: str) -> str:
    bare = re.sub(r"^(the|your|his|her|its) ", "", obj)
    lower = " ".join(w if w in _PROPER else w.lower() for w in task.split())
    title = " ".join(w[:1].upper() + w[1:] for w in bare.split())  # "Mom's Teapot"
    return template.format(Task=task, task=lower, obj=obj, Obj=obj[:1].upper() + obj[1:],
                           Goal=title)


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


def _jobs(deck: Deck, task: str, items: Sequence[str], obj: str, rng: random.Random,
          said: _Said, said_now: _Said) -> list[list[str]]:
    """Jobs each item could do, the chosen one first. In order: the item's best jobs for
    what the mission needs (``jobs.txt``), any job for those needs, the item's best jobs
    for what else it offers, a shrug ("for moral support"); each unsaid in the game. Only
    when all are said: a job said in an earlier round (never a shrug, never one of this
    round). A job names the goal only when the goal is a creature or a person."""
    need = _tags(deck, task)
    animate = "animal" in need or obj.split()[-1] in _ANIMATE
    chosen: list[list[str]] = []
    taken = _Said(())  # this plan's jobs: none inside another either
    taken_list: list[str] = []
    for item in items:
        offer = _tags(deck, item)
        ranked = list(deck.jobs.get(item, ()))
        if not ranked:  # a deck without jobs.txt: the pools of its tags, in a random order
            ranked = [(t, j) for t in sorted(offer) for j in JOBS[t]]
            rng.shuffle(ranked)
        mine = [j for t, j in ranked if t in need]
        anyone = [j for t in sorted(offer & need) for j in JOBS[t] if j not in mine]
        rng.shuffle(anyone)
        other = [j for t, j in ranked if t not in need]
        options: list[str] = []
        for pool, fresh_in in ((mine, said), (anyone, said), (other, said),
                               (list(_ANY_JOB), said), (mine + other, said_now)):
            fresh = [_render(j, task, obj) for j in pool if animate or "{obj}" not in j]
            fresh = [j for j in fresh if j not in fresh_in and j not in taken
                     and not any(t in j for t in taken_list)]
            if fresh:
                first = rng.randrange(min(2, len(fresh)))  # one of the two best, for variety
                options = [fresh[first], *fresh[:first], *fresh[first + 1:]]
                break
        for job in options[:1]:
            taken.add(job)
            taken_list.append(job.lower())
        chosen.append(options)
    return chosen


def _sentence(opener: str, steps: Sequence[str], items: Sequence[str],
              jobs: Sequence[str | None], closer: str) -> str:
    if len(items) == 1:
        steps = (steps[0],)
    else:
        steps = (steps[0], *[steps[1 + k % 2] for k in range(len(items) - 2)], steps[-1])
    body = "".join(f"{step}{item}" + (f" {job}" if job else "")
                   for step, item, job in zip(steps, items, jobs, strict=True))
    if not opener or opener.endswith((".", "!", "?")):
        body = body[:1].upper() + body[1:]
    return f"{opener} {body}{closer}".strip()


def plan_text(deck: Deck, task: str, items: Sequence[str], rng: random.Random,
              said: Sequence[str] = (), seat: int = 0, said_now: Sequence[str] = ()) -> str:
    """A short, silly plan (at most 160 characters) for ``task`` that gives every item a
    job, in order. ``said`` are the plans told so far in the game, ``said_now`` those of
    this round (among them): no opener, closer or shrug of theirs comes back, nor a job
    unless the item has no other; ``seat`` makes two seats open differently."""
    if not items:
        return f"I'll improvise: {task}"[:PLAN_MAX]
    obj = goal(task)
    said_game, said_round = _Said(said), _Said(said_now)
    start = seat % len(OPENERS)
    openers = [_render(o, task, obj) for o, marker in OPENERS[start:] + OPENERS[:start]
               if marker is None or marker not in said_game]
    openers = [o for o in openers if o not in said_game]
    shorts = [o for o in (_render(o, task, obj) for o in _SHORT_OPENERS)
              if o not in said_game] or [""]
    opener = openers[0] if openers else shorts[0]
    closers = [c for c in (_render(c, task, obj) for c in _CLOSERS) if c not in said_game]
    closer = rng.choice(closers) if closers else "."
    steps = list(rng.choice(_STEPS))
    options = _jobs(deck, task, items, obj, rng, said_game, said_round)
    jobs: list[str | None] = [o[0] if o else None for o in options]
    used = set(jobs)
    while True:
        text = _sentence(opener, steps, items, jobs, closer)
        if len(text) <= PLAN_MAX:
            return text
        longest = max(range(len(jobs)), key=lambda k: len(jobs[k] or ""))
        others = [j.lower() for k, j in enumerate(jobs) if j and k != longest]
        shorter = [o for o in options[longest]
                   if len(o) < len(jobs[longest] or "") and o not in used
                   and not any(o.lower() in j or j in o.lower() for j in others)]
        if closer != ".":
            closer = "."
        elif steps not in (list(_SHORT_STEPS), list(_BARE_STEPS)):
            steps = list(_SHORT_STEPS)
        elif shorter:
            jobs[longest] = min(shorter, key=len)
            used.add(jobs[longest])
        elif any(len(o) < len(opener) for o in (*openers, *shorts)):
            # the next opener in order of preference that is shorter than this one
            opener = next(o for o in (*openers, *shorts) if len(o) < len(opener))
        elif steps != list(_BARE_STEPS):
            steps = list(_BARE_STEPS)
        elif any(jobs):
            jobs[longest] = None
        elif opener:
            opener = ""
        else:
            return text.strip()[:PLAN_MAX]


def plan_names_every_item(plan: str, item_names: Sequence[str]) -> bool:
    """Does ``plan`` mention each of the items (what ``simulate`` counts)?"""
    return all(item in plan for item in item_names)
