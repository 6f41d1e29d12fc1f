"""What the log says is what happened: no move announced before it is made, a bot's tag only
on the bot's own move, and counts in the right grammatical number."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.rules import (
    BestPlan,
    EndGame,
    Guess,
    IllegalAction,
    LeadReveal,
    Reveal,
    Shout,
    apply,
)
from engine.text import plural
from tests.engine.test_rules import four_picks, game, play


def test_the_log_says_the_best_plan_is_picked_only_once_the_lead_has_picked_it() -> None:
    state = game(best_plan=True)
    a, b, c = state.guessers
    state = play(state, *four_picks(state), Guess(a, 1), Guess(b, 1), Guess(c, 1),
                 Reveal(a, "x"), Reveal(b, "y"), Reveal(c, "z"))
    state, events = apply(state, LeadReveal(state.lead))
    assert not any("picks the best plan" in e.text for e in events)
    assert any("now names the best plan" in e.text for e in events)
    lead, chosen = state.players[state.lead], state.players[b]
    state, events = apply(state, BestPlan(state.lead, b))
    # the lead's own move comes first (a bot lead's "(bot)" tag goes on it), then points
    assert events[0].text == f"{lead} names {chosen}'s plan the best"
    assert all(e.kind == "score" for e in events[1:])


def test_two_stoppers_are_spoken_of_in_the_plural() -> None:
    state = game()
    a, b, _ = state.guessers
    state = play(state, Shout(a, 100), Shout(b, 100))
    with pytest.raises(IllegalAction, match="are hiding their guesses"):
        apply(state, four_picks(state)[0])


@pytest.mark.parametrize(("count", "words"), [(0, "0 rounds"), (1, "1 round"),
                                               (2, "2 rounds")])
def test_counts_agree_with_their_nouns(count: int, words: str) -> None:
    assert plural(count, "round") == words


@pytest.mark.parametrize(("scores", "words"), [
    ((1, 0, 0, 0), "Game over: P0 wins with 1 point"),
    ((1, 1, 1, 0), "Game over: P0, P1 and P2 win with 1 point"),
    ((0, 3, 0, 3), "Game over: P1 and P3 win with 3 points"),
])
def test_the_game_over_line_names_its_winners_and_points_as_people_write_them(
        scores: tuple[int, ...], words: str) -> None:
    state = replace(game(), scores=scores)
    _, events = apply(state, EndGame(0))
    assert events[-1].text == words


def test_a_guess_refused_while_another_holds_the_token_does_not_suggest_stop() -> None:
    """Stop! is taken: "or shout Stop! first" sent a player to a key that could not work."""
    state = game()
    a, b, _ = state.guessers
    with pytest.raises(IllegalAction, match="or shout Stop! first"):
        apply(state, Guess(b, 1))
    state = play(state, Shout(a, 100))
    with pytest.raises(IllegalAction, match=r"^wait until all four items are down "
                                            rf"\({state.players[a]} holds the stop token\)$"):
        apply(state, Guess(b, 1))
