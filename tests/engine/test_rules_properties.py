"""Random play, legal and not, never breaks the rulebook's invariants."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import rules
from engine.rules import IllegalAction, Phase, State, apply, new_game, view_for

TASKS = tuple(f"task {i}" for i in range(62))
ITEMS = tuple(f"item {i}" for i in range(183))


def candidate(state: State, kind: int, seat: int, a: int, b: int) -> rules.Action:
    """Any action at all: most are legal-looking, many are not."""
    seat %= state.n
    match kind % 8:
        case 0:
            return rules.Pick(state.lead if a % 3 else seat, len(state.picks) if b % 4 else a % 5,
                              b % 4)
        case 1:
            return rules.Shout(seat, a % 3)
        case 2:
            return rules.Guess(seat, 1 + b % 4 if a % 7 else 5)
        case 3:
            return rules.Reveal(state.next_revealer if a % 3 and state.next_revealer is not None
                                else seat, "plan")
        case 4:
            return rules.LeadReveal(state.lead if a % 4 else seat, "mine")
        case 5:
            return rules.BestPlan(state.lead, b % state.n)
        case 6:
            return rules.NextRound(seat)
        case _:
            return rules.Guess(seat, 1 + a % 4)


def check_invariants(state: State, leads: list[int]) -> None:
    assert all(points >= 0 for points in state.scores)
    assert len(state.tasks) == 4 and len(set(state.tasks)) == 4
    cells = [item for column in state.grid for item in column]
    assert len(cells) == 16 and len(set(cells)) == 16
    assert len(state.task_pile) + len(state.task_discard) + 4 == len(TASKS)
    assert len(state.item_pile) + len(state.item_discard) + 16 == len(ITEMS)
    assert len(state.stop) == len(set(state.stop))
    assert state.lead not in state.stop
    assert all(state.guesses[s] is not None for s in state.revealed)
    # the lead passes left, one seat each round
    assert leads == [(leads[0] + k) % state.n for k in range(len(leads))]
    for seat in range(state.n):
        view = view_for(state, seat)
        for other, guess in enumerate(view.guesses):
            if other != seat and other not in state.revealed and state.phase in (
                    Phase.PICKING, Phase.GUESSING, Phase.REVEALING):
                assert guess is None


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(3, 6),
    seed=st.integers(0, 10_000),
    tie_window=st.sampled_from([0, 0, 50]),
    best_plan=st.booleans(),
    moves=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(0, 99),
                             st.integers(0, 99)), min_size=20, max_size=300),
)
def test_random_play_keeps_every_invariant(players: int, seed: int, tie_window: int,
                                           best_plan: bool,
                                           moves: list[tuple[int, int, int, int]]) -> None:
    options = rules.Options(best_plan=best_plan, stop_tie_window_ms=tie_window, rounds=0)
    state = new_game([f"P{i}" for i in range(players)], seed=seed, tasks=TASKS, items=ITEMS,
                     options=options)
    leads = [state.lead]
    for kind, seat, a, b in moves:
        action = candidate(state, kind, seat, a, b)
        before = state
        try:
            state, events = apply(state, action)
        except IllegalAction as refusal:
            assert str(refusal)
            assert state == before
            continue
        for event in events:
            assert event.text
        if state.round != before.round:
            leads.append(state.lead)
            # scores only change by the explained lines of the round
        if len(state.history) != len(before.history):
            result = state.history[-1]
            for s in range(state.n):
                assert state.scores[s] == before.scores[s] + result.delta(s)
        if state.stop and tie_window == 0:
            assert len(state.stop) == 1 or len({state.stop_at_ms}) == 1
        check_invariants(state, leads)


def _bot_free_round(state: State) -> State:
    for column in range(4):
        state, _ = apply(state, rules.Pick(state.lead, column, column))
    for seat in state.guessers:
        state, _ = apply(state, rules.Guess(seat, 1 + seat % 4))
    for seat in state.guessers:
        state, _ = apply(state, rules.Reveal(seat))
    state, _ = apply(state, rules.LeadReveal(state.lead))
    return state


@settings(max_examples=25, deadline=None)
@given(players=st.integers(3, 8), seed=st.integers(0, 10_000))
def test_a_full_game_ends_with_everyone_having_led(players: int, seed: int) -> None:
    state = new_game([f"P{i}" for i in range(players)], seed=seed, tasks=TASKS, items=ITEMS)
    leads = []
    while state.phase is not Phase.GAME_OVER:
        leads.append(state.lead)
        state = _bot_free_round(state)
        if state.phase is Phase.ROUND_OVER:
            state, _ = apply(state, rules.NextRound(0))
    assert set(leads) == set(range(players))
    assert len(leads) == rules.ROUNDS_BY_PLAYERS.get(players, players)
    assert state.winners() and max(state.scores) == state.scores[state.winners()[0]]
