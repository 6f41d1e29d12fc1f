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

import random
import re
from collections.abc import Sequence

from engine.cards import Deck
from engine.text import PLAN_MAX

# Jobs an item does for a tag; {obj} is the mission's goal ("the kitten").
JOBS: dict[str, tuple[str, ...]] = {
    "animal": ("as a buddy for {obj}", "to ride into battle", "as a furry sidekick",
               "to make friends", "as backup that moos", "to sniff things out",
               "to win over {obj}"),
    "catch": ("to scoop up {obj}", "to nab {obj}", "to catch whatever falls",
              "to trap {obj}", "to grab the prize", "to snag it on the way past",
              "to bag the loot"),
    "cold": ("to keep my cool", "to freeze {obj} in place", "to chill things down",
             "to make it snow", "for an icy welcome", "to cool {obj} off",
             "to stop the melting"),
    "disguise": ("as a disguise", "to look like a local", "to pass as a VIP",
                 "so nobody knows it's me", "to dress up as {obj}", "as my fake mustache",
                 "to blend right in"),
    "fire": ("to warm things up", "to toast it", "to melt {obj}", "for a cozy glow",
             "to cook up a storm", "to heat things up", "to light a campfire"),
    "food": ("as a snack bribe", "to feed the guards", "to tempt {obj}",
             "for a picnic break", "to keep my strength up", "as a peace offering",
             "to leave a tasty trail"),
    "heavy": ("to weigh it down", "to squash the problem", "to hold {obj} still",
              "as an anchor", "to flatten the obstacle", "to push with",
              "to block the door"),
    "height": ("to reach the top", "to get up high", "to climb over {obj}",
               "to see over everything", "to reach the high branch", "to get down again",
               "for a better view"),
    "hide": ("to hide in", "to stay out of sight", "to hide from {obj}",
             "to duck behind", "as a secret hideout", "to cover my tracks",
             "to keep it under wraps"),
    "light": ("to light the way", "to dazzle {obj}", "to signal the team",
              "to see in the dark", "to blind the guards", "for a dramatic spotlight",
              "to flash a message"),
    "lure": ("as bait", "to tempt {obj} over", "to distract {obj}",
             "to lead {obj} away", "as a shiny distraction", "to wave around",
             "to lure everyone off"),
    "noise": ("to make a racket", "as a loud distraction", "to wake {obj}",
              "to drown out my footsteps", "to sound the alarm", "to scare {obj}",
              "for a drum roll"),
    "rope": ("to tie it up", "to swing across", "to lasso {obj}", "to pull {obj} along",
             "to climb down", "as a safety line", "to haul it home"),
    "sharp": ("to cut through", "to pop it", "to poke {obj}", "to snip the ropes",
              "to carve an exit", "to slice a way in", "to prick the balloon"),
    "soft": ("for a soft landing", "as a cushion", "to tiptoe quietly",
             "to muffle the noise", "to tuck {obj} in", "as a pillow fort",
             "to wrap {obj} up"),
    "speed": ("to zoom off", "for the getaway", "to outrun {obj}", "to race ahead",
              "to make a quick exit", "to go full speed", "to get there first"),
    "sticky": ("to stick it in place", "to glue it shut", "to trap {obj}",
               "to make it stay put", "to stick to the wall", "as a sticky trap",
               "to patch the leak"),
    "water": ("to splash through", "to float across", "to soak {obj}",
              "to make a big splash", "to wash it away", "to paddle over",
              "to put out the fire"),
}
_ANY_JOB = ("just in case", "for moral support", "for style points", "as a lucky charm",
            "to confuse everyone", "because the plan said so", "as a backup plan",
            "to look busy")

OPENERS = ("To {task}:", "Mission: {Task}.", "{Task}? Easy.", "How I'd {task}:",
           "Plan to {task}:", "{Task}, my way:", "Right, {task}!", "Job: {task}.",
           "We {task} like this:", "Watch me {task}:")
_SHORT_OPENERS = ("Operation {Goal}:", "The {Goal} job:", "For {obj}:", "{Goal} plan:")
_CLOSERS = (". {Obj} never saw it coming.", ". Nobody suspects a thing.", ". Ta-da!",
            ". What could go wrong?", ". Trust me.", ". Applause, please.", ". Easy.",
            ". Done!", ". Home for dinner.", ". Nailed it.")
_STEPS = (("first the ", ", then the ", ", the ", ", and last the "),
          ("the ", ", next the ", ", then the ", ", and finally the "),
          ("start with the ", ", add the ", ", then the ", ", and finish with the "))
_SHORT_STEPS = ("the ", ", the ", ", the ", ", the ")

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


def _render(template: str, task: str, obj: str) -> str:
    bare = re.sub(r"^(the|your|his|her|its) ", "", obj)
    lower = " ".join(w if w in _PROPER else w.lower() for w in task.split())
    return template.format(Task=task, task=lower, obj=obj,
                           Obj=obj[:1].upper() + obj[1:], Goal=bare.title())


def _said(phrase: str, said: Sequence[str]) -> bool:
    core = phrase.strip(" .:!?,")
    return any(core.lower() in plan.lower() for plan in said)


def _tags(deck: Deck, name: str) -> frozenset[str]:
    try:
        return deck.card(name).tags
    except KeyError:
        return frozenset()


def _jobs(deck: Deck, task: str, items: Sequence[str], obj: str, rng: random.Random,
          said: Sequence[str]) -> list[list[str]]:
    """Jobs each item could do, the chosen one first: from the tags it shares with the
    mission, else from its own, else any; none that the game or this plan said already.
    A job names the goal only when the goal is a creature or a person."""
    need = _tags(deck, task)
    animate = "animal" in need or obj.split()[-1] in _ANIMATE
    chosen: list[list[str]] = []
    taken: set[str] = set()
    for item in items:
        offer = _tags(deck, item)
        shared, own = sorted(offer & need), sorted(offer - need)
        rng.shuffle(shared)
        rng.shuffle(own)
        options: list[str] = []
        for pool in ([j for t in shared for j in JOBS[t]], [j for t in own for j in JOBS[t]],
                     list(_ANY_JOB)):
            fresh = [_render(j, task, obj) for j in pool if animate or "{obj}" not in j]
            fresh = [j for j in fresh if not _said(j, said) and j not in taken]
            if fresh:
                rng.shuffle(fresh)
                options = fresh
                break
        taken.update(options[:1])
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
              said: Sequence[str] = (), seat: int = 0) -> str:
    """A short, silly plan (at most 160 characters) for ``task`` that gives every item a
    job, in order. ``said`` are the plans told so far in the game: no opener, job or closer
    of theirs comes back; ``seat`` makes two seats open differently."""
    if not items:
        return f"I'll improvise: {task}"[:PLAN_MAX]
    obj = goal(task)
    openers = [_render(o, task, obj) for o in OPENERS]
    start = seat % len(openers)
    openers = [o for o in openers[start:] + openers[:start] if not _said(o, said)]
    shorts = [o for o in (_render(o, task, obj) for o in _SHORT_OPENERS)
              if not _said(o, said)] or [f"{obj[:1].upper()}{obj[1:]}:"]
    opener = openers[0] if openers else shorts[0]
    closers = [c for c in (_render(c, task, obj) for c in _CLOSERS) if not _said(c, said)]
    closer = rng.choice(closers) if closers else "."
    steps = list(rng.choice(_STEPS))
    options = _jobs(deck, task, items, obj, rng, said)
    jobs: list[str | None] = [o[0] if o else None for o in options]
    used = set(jobs)
    while True:
        text = _sentence(opener, steps, items, jobs, closer)
        if len(text) <= PLAN_MAX:
            return text
        longest = max(range(len(jobs)), key=lambda k: len(jobs[k] or ""))
        shorter = [o for o in options[longest]
                   if len(o) < len(jobs[longest] or "") and o not in used]
        if closer != ".":
            closer = "."
        elif steps != list(_SHORT_STEPS):
            steps = list(_SHORT_STEPS)
        elif shorter:
            jobs[longest] = min(shorter, key=len)
            used.add(jobs[longest])
        elif opener not in shorts and min(shorts, key=len) != opener:
            opener = min(shorts, key=len)
        elif any(jobs):
            jobs[longest] = None
        elif opener:
            opener = ""
        else:
            return text.strip()[:PLAN_MAX]


def plan_names_every_item(plan: str, item_names: Sequence[str]) -> bool:
    """Does ``plan`` mention each of the items (what ``simulate`` counts)?"""
    return all(item in plan for item in item_names)
