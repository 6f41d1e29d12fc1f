"""The rulebook, rule by rule, as a player would check it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import rules
from engine.rules import (
    BestPlan,
    EndGame,
    Guess,
    IllegalAction,
    LeadReveal,
    NextRound,
    Options,
    Phase,
    Pick,
    Reveal,
    Shout,
    State,
    apply,
    new_game,
    view_for,
)

TASKS = tuple(f"task {i}" for i in range(62))
ITEMS = tuple(f"item {i}" for i in range(183))


def game(players: int = 4, seed: str = "s", **options: object) -> State:
    names = [f"P{i}" for i in range(players)]
    return new_game(names, seed=seed, tasks=TASKS, items=ITEMS, options=Options(**options))


def play(state: State, *actions: rules.Action) -> State:
    for action in actions:
        state, _ = apply(state, action)
    return state


def four_picks(state: State) -> list[Pick]:
    return [Pick(state.lead, c, 0) for c in range(4)]


# --- the worked example ------------------------------------------------------------------

HALEY, ELLIE, FELIX, GEORGE = range(4)


def haley_table() -> State:
    state = new_game(["Haley", "Ellie", "Felix", "George"], seed="example", tasks=TASKS,
                     items=ITEMS)
    grid = [list(col) for col in state.grid]
    grid[0][0], grid[1][2], grid[2][1], grid[3][3] = (
        "Trampoline", "Motorcycle Helmet", "Water Wings", "Clothesline")
    tasks = ("Paint a Fence", "Jump From a Plane", "Get Past a Bouncer", "Bake a Cake")
    return replace(state, lead=HALEY, secret=3, tasks=tasks,
                   grid=tuple(tuple(c) for c in grid))


def test_the_rulebook_example_scores_exactly_as_printed() -> None:
    state = haley_table()
    start = state.scores
    state = play(
        state,
        Pick(HALEY, 0, 0),  # Trampoline
        Pick(HALEY, 1, 2),  # Motorcycle Helmet
        Shout(FELIX, 1000),
        Guess(FELIX, 3),
        Pick(HALEY, 2, 1),  # Water Wings
        Pick(HALEY, 3, 3),  # Clothesline
        Guess(ELLIE, 3),
        Guess(GEORGE, 2),
        Reveal(ELLIE, "tie up the bouncer, bounce over him"),
        Reveal(FELIX, "roll the helmet past him"),
        Reveal(GEORGE, "slide down the clothesline from the plane"),
        LeadReveal(HALEY, "stuntman entrance"),
    )
    gained = [after - before for after, before in zip(state.scores, start, strict=True)]
    assert gained == [2, 1, 2, 0]  # Haley, Ellie, Felix, George
    result = state.history[-1]
    assert result.task == "Get Past a Bouncer"
    assert result.items == ("Trampoline", "Motorcycle Helmet", "Water Wings", "Clothesline")
    assert result.stop == (FELIX,)
    assert state.phase is Phase.ROUND_OVER


def test_reveal_starts_at_the_lead_agents_left() -> None:
    state = play(haley_table(), *four_picks(haley_table()),
                 Guess(ELLIE, 1), Guess(FELIX, 1), Guess(GEORGE, 1))
    assert state.phase is Phase.REVEALING
    with pytest.raises(IllegalAction, match="Ellie's turn"):
        apply(state, Reveal(FELIX))
    state = play(state, Reveal(ELLIE), Reveal(FELIX))
    assert state.next_revealer == GEORGE


# --- setup -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_deals_four_tasks_sixteen_items_one_point_each(players: int) -> None:
    state = game(players)
    assert len(state.tasks) == 4 and len(set(state.tasks)) == 4
    assert sum(len(col) for col in state.grid) == 16
    assert state.scores == (1,) * players
    assert 0 <= state.lead < players
    assert state.secret in (1, 2, 3, 4)


def test_the_same_seed_deals_the_same_game_and_another_seed_does_not() -> None:
    assert game(seed="a") == game(seed="a")
    assert game(seed="a").tasks != game(seed="b").tasks


def test_the_first_lead_agent_is_chosen_at_random() -> None:
    leads = {game(seed=str(i)).lead for i in range(40)}
    assert leads == {0, 1, 2, 3}


def test_fewer_than_three_players_cannot_start() -> None:
    with pytest.raises(IllegalAction, match="3 to 8"):
        new_game(["a", "b"], seed=1, tasks=TASKS, items=ITEMS)


# --- picking -----------------------------------------------------------------------------


def test_only_the_lead_agent_picks_items() -> None:
    state = game()
    other = (state.lead + 1) % 4
    with pytest.raises(IllegalAction, match="only the lead agent"):
        apply(state, Pick(other, 0, 0))


def test_items_are_picked_strictly_left_to_right() -> None:
    state = game()
    with pytest.raises(IllegalAction, match="column 1"):
        apply(state, Pick(state.lead, 1, 0))
    state = play(state, Pick(state.lead, 0, 3))
    with pytest.raises(IllegalAction, match="column 2"):
        apply(state, Pick(state.lead, 0, 1))


def test_a_pick_outside_the_grid_is_refused() -> None:
    state = game()
    with pytest.raises(IllegalAction, match="rows 1 to 4"):
        apply(state, Pick(state.lead, 0, 4))


def test_after_the_fourth_item_the_others_hide_guesses() -> None:
    state = game()
    state = play(state, *four_picks(state))
    assert state.phase is Phase.GUESSING
    assert set(state.waiting_for()) == set(state.guessers)


# --- Stop! -------------------------------------------------------------------------------


def test_stop_blocks_the_lead_until_the_stopper_hides_a_guess() -> None:
    state = game()
    shouter = state.guessers[1]
    state = play(state, Pick(state.lead, 0, 0), Shout(shouter, 5))
    assert state.waiting_for() == (shouter,)
    with pytest.raises(IllegalAction, match="shouted Stop"):
        apply(state, Pick(state.lead, 1, 0))
    state = play(state, Guess(shouter, 2), Pick(state.lead, 1, 0))
    assert state.picks == (0, 0)


def test_only_the_first_shout_takes_the_stop_token() -> None:
    state = game()
    first, second = state.guessers[0], state.guessers[1]
    state = play(state, Shout(first, 100))
    with pytest.raises(IllegalAction, match="first"):
        apply(state, Shout(second, 101))


def test_shouts_within_the_tie_window_share_the_stop_token() -> None:
    state = game(stop_tie_window_ms=50)
    first, second, third = state.guessers
    state = play(state, Shout(first, 100), Shout(second, 150))
    assert state.stop == (first, second)
    with pytest.raises(IllegalAction):
        apply(state, Shout(third, 151))


def test_shouts_at_the_same_millisecond_share_the_token_by_default() -> None:
    state = game()
    first, second, _ = state.guessers
    state = play(state, Shout(first, 100), Shout(second, 100))
    assert state.stop == (first, second)


def test_stop_is_too_late_once_the_fourth_item_is_down() -> None:
    state = game()
    state = play(state, *four_picks(state))
    with pytest.raises(IllegalAction, match="too late"):
        apply(state, Shout(state.guessers[0], 1))


def test_the_lead_cannot_shout_stop() -> None:
    state = game()
    with pytest.raises(IllegalAction, match="cannot shout"):
        apply(state, Shout(state.lead, 1))


def test_a_stoppers_guess_cannot_change() -> None:
    state = game()
    shouter = state.guessers[0]
    state = play(state, Shout(shouter, 1), Guess(shouter, 1))
    with pytest.raises(IllegalAction, match="cannot change"):
        apply(state, Guess(shouter, 2))


def test_others_cannot_guess_before_the_fourth_item_without_stop() -> None:
    state = game()
    with pytest.raises(IllegalAction, match="wait until all four items"):
        apply(state, Guess(state.guessers[0], 1))


def _round_with(state: State, guesses: dict[int, int], stop: tuple[int, ...] = ()) -> State:
    for seat in stop:
        state = play(state, Shout(seat, 0), Guess(seat, guesses[seat]))
    state = play(state, *four_picks(state))
    for seat, card in guesses.items():
        if seat not in stop:
            state = play(state, Guess(seat, card))
    for seat in state.guessers:
        state = play(state, Reveal(seat))
    return play(state, LeadReveal(state.lead))


def test_a_wrong_stop_returns_a_point() -> None:
    state = game()
    right = state.secret
    wrong = right % 4 + 1
    a, b, c = state.guessers
    after = _round_with(state, {a: wrong, b: right, c: right}, stop=(a,))
    assert after.scores[a] == 0
    assert after.scores[state.lead] == 3


def test_a_wrong_stop_with_no_points_costs_nothing() -> None:
    state = game()
    a, b, c = state.guessers
    state = replace(state, scores=tuple(0 if s == a else 1 for s in range(4)))
    wrong = state.secret % 4 + 1
    after = _round_with(state, {a: wrong, b: wrong, c: wrong}, stop=(a,))
    assert after.scores[a] == 0
    assert min(after.scores) >= 0


def test_tied_stop_holders_each_get_the_bonus_or_penalty() -> None:
    state = game()
    a, b, c = state.guessers
    right, wrong = state.secret, state.secret % 4 + 1
    after = _round_with(state, {a: right, b: wrong, c: wrong}, stop=(a, b))
    assert after.scores[a] == 1 + 2
    assert after.scores[b] == 0


def test_nobody_right_means_no_points_for_the_lead() -> None:
    state = game()
    wrong = state.secret % 4 + 1
    after = _round_with(state, dict.fromkeys(state.guessers, wrong))
    assert after.scores == state.scores


# --- best plan ---------------------------------------------------------------------------


def test_the_best_plan_point_goes_to_the_player_the_lead_names() -> None:
    state = game(best_plan=True)
    a, b, c = state.guessers
    wrong = state.secret % 4 + 1
    state = play(state, *four_picks(state), Guess(a, wrong), Guess(b, wrong), Guess(c, wrong),
                 Reveal(a, "x"), Reveal(b, "y"), Reveal(c, "z"), LeadReveal(state.lead))
    assert state.phase is Phase.BEST_PLAN
    with pytest.raises(IllegalAction, match="other players"):
        apply(state, BestPlan(state.lead, state.lead))
    state = play(state, BestPlan(state.lead, b))
    assert state.scores[b] == 2
    assert state.history[-1].lines[-1].reason == "best plan"


# --- cleanup and the end -----------------------------------------------------------------


def test_next_round_replaces_tasks_and_only_the_chosen_items_and_passes_the_lead_left() -> None:
    state = game()
    done = _round_with(state, dict.fromkeys(state.guessers, 1))  # picks row 1 of each column
    after = play(done, NextRound(0))
    assert after.lead == (state.lead + 1) % 4
    assert set(after.tasks).isdisjoint(state.tasks)
    for column in range(4):
        assert after.grid[column][1:] == state.grid[column][1:]
        assert after.grid[column][0] != state.grid[column][0]
    assert after.phase is Phase.PICKING and after.round == 2
    assert after.picks == () and after.stop == () and set(after.guesses) == {None}


@pytest.mark.parametrize(("players", "rounds"), [(3, 6), (4, 8), (5, 5), (6, 6)])
def test_the_game_lasts_the_rulebooks_rounds_and_everyone_leads(players: int,
                                                                rounds: int) -> None:
    state = game(players)
    leads = []
    while state.phase is not Phase.GAME_OVER:
        leads.append(state.lead)
        state = _round_with(state, dict.fromkeys(state.guessers, 1))
        if state.phase is Phase.ROUND_OVER:
            state = play(state, NextRound(0))
    assert len(leads) == rounds
    assert set(leads) == set(range(players))


def test_ties_share_victory() -> None:
    state = replace(game(), scores=(5, 5, 2, 1))
    assert state.winners() == (0, 1)


def test_an_endless_game_goes_on_until_ended() -> None:
    state = game(rounds=0)
    for _ in range(20):
        state = play(_round_with(state, dict.fromkeys(state.guessers, 1)), NextRound(0))
    assert state.total_rounds is None and state.phase is Phase.PICKING
    state = play(state, EndGame(0))
    assert state.phase is Phase.GAME_OVER
    with pytest.raises(IllegalAction, match="over"):
        apply(state, NextRound(0))


def test_decks_are_reshuffled_when_they_run_out() -> None:
    state = game(rounds=0)
    for _ in range(40):  # 160 tasks drawn from 62 cards
        state = play(_round_with(state, dict.fromkeys(state.guessers, 1)), NextRound(0))
        assert len(set(state.tasks)) == 4
        in_play = {i for col in state.grid for i in col}
        assert len(in_play) == 16
        assert len(state.task_pile) + len(state.task_discard) + 4 == len(TASKS)
    assert state.shuffles > 0


# --- refusals ----------------------------------------------------------------------------


def test_an_unknown_seat_is_refused() -> None:
    with pytest.raises(IllegalAction, match="no seat"):
        apply(game(), Guess(9, 1))


def test_a_guess_after_the_reveal_began_is_refused() -> None:
    state = game()
    state = play(state, *four_picks(state), *(Guess(s, 1) for s in state.guessers))
    with pytest.raises(IllegalAction, match="already being revealed"):
        apply(state, Guess(state.guessers[0], 2))


def test_a_guess_card_must_be_one_to_four() -> None:
    state = game()
    state = play(state, *four_picks(state))
    with pytest.raises(IllegalAction, match="1 to 4"):
        apply(state, Guess(state.guessers[0], 5))


def test_a_refused_action_leaves_the_state_unchanged() -> None:
    state = game()
    before = state
    with pytest.raises(IllegalAction):
        apply(state, Pick(state.lead, 2, 0))
    assert state == before


def test_plans_are_cleaned_of_escape_codes_and_capped() -> None:
    state = game()
    state = play(state, *four_picks(state), *(Guess(s, 1) for s in state.guessers))
    state = play(state, Reveal(state.guessers[0], "\x1b[2J\x1b]0;pwn\x07hi " + "x" * 500))
    plan = state.plans[state.guessers[0]]
    assert plan.startswith("hi ") and "\x1b" not in plan and len(plan) <= 160


def test_actions_round_trip_through_plain_data() -> None:
    for action in (Pick(1, 2, 3), Shout(0, 77), Guess(2, 4), Reveal(1, "p"), EndGame(0)):
        assert rules.action_from_dict(rules.action_to_dict(action)) == action
    with pytest.raises(IllegalAction):
        rules.action_from_dict({"type": "Teleport", "seat": 0})
    with pytest.raises(IllegalAction):
        rules.action_from_dict({"type": "Pick", "seat": 0})


# --- views -------------------------------------------------------------------------------


def test_only_the_lead_sees_the_secret_before_the_reveal() -> None:
    state = game()
    assert view_for(state, state.lead).secret == state.secret
    for seat in [*state.guessers, None]:
        assert view_for(state, seat).secret is None


def test_hidden_guesses_are_seen_only_by_their_owner_until_revealed() -> None:
    state = game()
    a, b, c = state.guessers
    state = play(state, *four_picks(state), Guess(a, 1), Guess(b, 2), Guess(c, 3))
    assert view_for(state, a).guesses[b] is None
    assert view_for(state, a).guesses[a] == 1
    assert view_for(state, state.lead).guesses == (None,) * 4
    assert view_for(state, None).hidden == tuple(s != state.lead for s in range(4))
    state = play(state, Reveal(a))
    assert view_for(state, c).guesses[a] == 1
    assert view_for(state, c).guesses[b] is None


def test_a_shout_after_another_item_went_down_is_no_tie() -> None:
    state = game()
    lead, (g0, g1, _) = state.lead, state.guessers
    state = play(state, Pick(lead, 0, 0), Shout(g0, 0), Guess(g0, 1), Pick(lead, 1, 0))
    with pytest.raises(IllegalAction, match="first"):
        apply(state, Shout(g1, 0))


def test_a_shout_stamped_before_the_holders_takes_the_token_while_the_race_is_open() -> None:
    """Its bytes reached the server first; its app handed it on late."""
    late, early = game().guessers[0], game().guessers[1]
    state = play(game(stop_tie_window_ms=50), Shout(late, 100))
    after, events = apply(state, Shout(early, 40))  # 60 ms earlier: beyond the tie window
    assert after.stop == (early,) and after.stop_at_ms == 40
    assert "shouted Stop! first and takes the stop token from" in events[0].text


def test_a_holder_stamped_within_the_tie_window_of_an_earlier_shout_keeps_a_share() -> None:
    late, early = game().guessers[0], game().guessers[1]
    state = play(game(stop_tie_window_ms=50), Shout(late, 100))
    after, _ = apply(state, Shout(early, 70))
    assert after.stop == (early, late) and after.stop_stamps == (70, 100)


def test_an_earlier_shout_is_too_late_once_the_holder_hid_a_guess() -> None:
    late, early = game().guessers[0], game().guessers[1]
    state = play(game(), Shout(late, 100), Guess(late, 2))
    with pytest.raises(IllegalAction, match="took the stop token before your Stop!"):
        apply(state, Shout(early, 40))


def test_a_shout_stamped_after_the_tie_window_is_refused_by_name() -> None:
    first, second = game().guessers[0], game().guessers[1]
    state = play(game(stop_tie_window_ms=50), Shout(first, 100))
    with pytest.raises(IllegalAction, match=f"^{state.players[first]} shouted Stop! first$"):
        apply(state, Shout(second, 151))


@pytest.mark.parametrize("action", [
    Pick(0, 0.0, 0), Pick(0, 0, True), Guess(1, 1.0), Shout(1.0, 0), Reveal(1, 5),  # type: ignore[arg-type]
])
def test_numbers_that_are_not_whole_numbers_are_refused(action: rules.Action) -> None:
    with pytest.raises(IllegalAction):
        apply(replace(game(), lead=0), action)
