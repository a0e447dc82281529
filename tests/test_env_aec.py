"""sim.env's PettingZoo environments: the API checks of pettingzoo.test under every preset,
the deals of `sim run`, the scores, R24's refusal, and R26: a seat's observation does not
change with cards it may not see."""
from __future__ import annotations

import functools
import types
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import (  # noqa: E402
    api_test, max_cycles_test, parallel_api_test, parallel_seed_test, seed_test,
)
from pettingzoo.utils.conversions import parallel_to_aec  # noqa: E402

import sim.env  # noqa: E402
from sim.env.aec import ShitheadEnv  # noqa: E402
from sim.env.parallel import ShitheadParallelEnv  # noqa: E402
from sim.kernel import dealing, derived, engine  # noqa: E402
from sim.kernel.layout import (  # noqa: E402
    CURRENT, FD, FDN, FDS, HANDN, HANDS, KNOWN, NR, PUB, STATE_SIZE, STOCK, STOCKLEN,
)

TABLES = [dict(players=4), dict(players=2), dict(players=6), dict(players=5, rules="classic"),
          dict(players=4, rules="masters-of-shithead"), dict(players=6, rules="boothj5"),
          dict(players=8, rules="boothj5"),
          dict(players=3, rule=["last_player_loses=true", "hand_size=4"])]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # pettingzoo's advice on dict observations
        yield


@pytest.mark.parametrize("kw", TABLES, ids=lambda kw: f"{kw.get('rules', 'seed')}-{kw['players']}")
def test_api(kw):
    api_test(ShitheadEnv(**kw), num_cycles=300)


def test_seed_test():
    seed_test(functools.partial(ShitheadEnv, players=4), num_cycles=300)
    seed_test(functools.partial(ShitheadEnv, players=4, rules="masters-of-shithead"),
              num_cycles=300)


def test_parallel_api_and_max_cycles():
    parallel_api_test(ShitheadParallelEnv(players=4), num_cycles=300)
    parallel_api_test(ShitheadParallelEnv(players=5, rules="classic"), num_cycles=300)
    parallel_seed_test(functools.partial(ShitheadParallelEnv, players=3, illegal="lowest"))
    # max_cycles_test samples actions without their mask, and counts one step of every live
    # agent per cycle: the parallel form (one turn a step), and its AEC view.
    mod = types.SimpleNamespace(
        parallel_env=functools.partial(sim.env.parallel_env, illegal="lowest"),
        env=lambda **kw: parallel_to_aec(sim.env.parallel_env(illegal="lowest", **kw)))
    max_cycles_test(mod)


@pytest.mark.parametrize("rules", ["seed", "classic", "boothj5"])
def test_deals_are_sim_runs(rules):
    """reset(seed=s), then each reset: games 0, 1, 2 of `sim run --seed s`, card for card,
    and the same swaps (both seat highest-up) and first player."""
    from sim.runs.config import RunConfig
    from sim.runs.onegame import record_game

    cfg = RunConfig(games=3, players=4, seed=11, rules=rules)
    env = ShitheadEnv(players=4, rules=rules)
    env.reset(seed=11)
    for g in range(3):
        if g:
            env.reset()
        rec = record_game(cfg, g)
        assert env.table.game == g
        assert np.array_equal(env.table.dealt, rec.dealt)
        start = rec.start.copy()
        if rules == "boothj5" and len(rec.moves):        # H16: the forced opening is made
            engine.apply_move(start, rec.moves[0])
        assert np.array_equal(env.table.st, start)
    env.reset(seed=11, options={"game": 2})
    assert np.array_equal(env.table.dealt, record_game(cfg, 2).dealt)


def _random_game(env, seed):
    gen = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    order = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            order.append(agent)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0 and obs["observation"][CURRENT] == int(agent[5:])
        env.step(int(gen.choice(legal)))
    return totals, order


def test_rewards_seed_and_v2():
    totals, _ = _random_game(ShitheadEnv(players=4), 3)
    assert sorted(totals.values()) == [-1.0, -1.0, -1.0, 1.0]         # R25: one winner
    totals, _ = _random_game(ShitheadEnv(players=4, reward="win"), 3)
    assert sorted(totals.values()) == [0.0, 0.0, 0.0, 1.0]
    env = ShitheadEnv(players=4, rules="classic")                      # V2: every place
    totals, order = _random_game(env, 5)
    assert sorted(totals.values()) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])
    assert totals[order[-1]] == -1.0 or env.truncations.get(order[-1])  # the Shithead


def test_truncated_at_max_turns():
    env = ShitheadEnv(players=4, max_turns=5)
    totals, order = _random_game(env, 1)
    assert env.table.turn == 5 and set(totals.values()) == {0.0} and len(order) == 4


def test_bad_input():
    with pytest.raises(ValueError, match="players"):
        ShitheadEnv(players=9)
    with pytest.raises(ValueError, match="two decks"):
        ShitheadEnv(players=7)
    with pytest.raises(ValueError, match="unknown rule option"):
        ShitheadEnv(rule=["no_such=1"])
    with pytest.raises(ValueError, match="unknown rules preset"):
        ShitheadEnv(rules="nope")
    with pytest.raises(ValueError, match="reward"):
        ShitheadEnv(reward="money")
    with pytest.raises(ValueError, match="max_turns"):
        ShitheadEnv(max_turns=0)
    env = ShitheadEnv(players=4)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="R24"):
        env.step(bad)
    lenient = ShitheadEnv(players=4, illegal="lowest")
    lenient.reset(seed=1)
    lenient.step(bad)
    assert lenient.infos[f"seat_{env.table.current}"] == {"illegal": True}


def test_rule_overrides_apply():
    env = ShitheadEnv(players=4, rules="classic", rule=["ten_anywhere=false"])
    assert env.spec_.ruleset.ten_anywhere is False and env.spec_.ruleset.last_player_loses


def _hidden_variant(st, seat, gen):
    """The state with what ``seat`` may not see changed (R26): the stock's order, every
    face-down card (its own too), and unknown hand cards swapped between two other seats."""
    st = st.copy()
    n = st[STOCKLEN]
    st[STOCK:STOCK + n] = gen.permutation(st[STOCK:STOCK + n])
    players = int(st[0])
    down = [(s, i) for s in range(players) for i in range(st[FDN + s])]
    cards = gen.permutation([st[FD + s * FDS + i] for s, i in down])
    for (s, i), c in zip(down, cards):
        st[FD + s * FDS + i] = c
    others = [s for s in range(players) if s != seat and st[HANDN + s] > 0]
    for a in others:
        for b in others:
            for ra in range(NR):
                for rb in range(NR):
                    ua = st[HANDS + a * NR + ra] - st[KNOWN + a * NR + ra]
                    ub = st[HANDS + b * NR + rb] - st[KNOWN + b * NR + rb]
                    if a != b and ra != rb and ua > 0 and ub > 0:
                        st[HANDS + a * NR + ra] -= 1
                        st[HANDS + a * NR + rb] += 1
                        st[HANDS + b * NR + rb] -= 1
                        st[HANDS + b * NR + ra] += 1
                        derived.derive_have(st)
                        return st, True
    derived.derive_have(st)
    return st, False


@pytest.mark.parametrize("rules", ["seed", "classic", "masters-of-shithead"])
def test_no_leak(rules):
    """Two worlds that differ only in cards a seat may not see give it the same
    observation and mask (R26), at every point of a game, for every seat; and a world
    re-dealt by sim.kernel.sampling from the mover's view gives the mover the same."""
    from sim.kernel.layout import DECK
    from sim.kernel.sampling import sample_world

    env, twin = ShitheadEnv(players=4, rules=rules), ShitheadEnv(players=4, rules=rules)
    env.reset(seed=2)
    twin.reset(seed=2)
    gen = np.random.default_rng(0)
    swapped = 0
    for turn in range(60):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        for seat in range(4):
            agent = f"seat_{seat}"
            if agent not in env.agents:
                continue
            twin.table.st[:], ok = _hidden_variant(env.table.st, seat, gen)
            swapped += ok
            a, b = env.observe(agent), twin.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        me = env.table.current
        obs = env.table.st[:PUB].copy()
        hand = env.table.st[HANDS + me * NR:HANDS + me * NR + NR].copy()
        world = np.zeros(STATE_SIZE, np.int32)
        assert sample_world(obs, hand, np.array([1, 2, 3, turn + 1], np.uint64), world,
                            np.zeros(DECK, np.int32))
        twin.table.st[:] = world
        agent = f"seat_{me}"
        assert np.array_equal(env.observe(agent)["observation"],
                              twin.observe(agent)["observation"])
        assert np.array_equal(env.observe(agent)["action_mask"],
                              twin.observe(agent)["action_mask"])
        env.step(int(gen.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert swapped > 0


def test_missing_extra_says_which_install(monkeypatch):
    import sys

    from sim.runs.config import RunError

    monkeypatch.setitem(sys.modules, "pettingzoo", None)      # as if not installed
    with pytest.raises(RunError, match=r"pip install 'shithead-sim\[rl\]'"):
        sim.env.env(players=4)


# -- swap="choose": the swap (R5/V1) as an action -------------------------------------------
CHOOSE_TABLES = [dict(players=4), dict(players=5, rules="classic"),
                 dict(players=3, rule=["hand_size=4", "choose_face_ups=true"]),
                 dict(players=6, rules="boothj5")]


@pytest.mark.parametrize("kw", CHOOSE_TABLES,
                         ids=lambda kw: f"{kw.get('rules', 'seed')}-{kw['players']}")
def test_api_choose(kw):
    api_test(ShitheadEnv(swap="choose", **kw), num_cycles=300)


def test_seed_and_parallel_choose():
    seed_test(functools.partial(ShitheadEnv, players=4, swap="choose"), num_cycles=300)
    seed_test(functools.partial(ShitheadEnv, players=3, swap="choose",
                                rule=["hand_size=4"]), num_cycles=300)
    parallel_api_test(ShitheadParallelEnv(players=4, swap="choose"), num_cycles=300)
    parallel_seed_test(functools.partial(ShitheadParallelEnv, players=3, swap="choose",
                                         illegal="lowest"))


def test_choose_action_set():
    from sim.env import core
    from sim.env.spec import N_ACTIONS_CHOOSE, SWAP_IDS
    from sim.kernel.layout import DEALER, NMOVES

    assert SWAP_IDS == 70 and N_ACTIONS_CHOOSE == NMOVES + 70
    assert ShitheadEnv(players=4).action_space("seat_0").n == NMOVES      # default unchanged
    env = ShitheadEnv(players=4, swap="choose")
    assert env.action_space("seat_0").n == N_ACTIONS_CHOOSE
    env.reset(seed=3)
    dealer = int(env.table.st[DEALER])
    for i in range(1, 5):                       # deal order from the dealer's left
        agent = env.agent_selection
        assert agent == f"seat_{(dealer + i) % 4}"
        obs = env.observe(agent)
        assert obs["observation"][CURRENT] == (dealer + i) % 4
        assert np.array_equal(np.flatnonzero(obs["action_mask"]), NMOVES + np.arange(20))
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(NMOVES)
    assert not env.table.swapping
    assert not env.observe(env.agent_selection)["action_mask"][NMOVES:].any()
    # the combinations: 3 of 6 slots (20), 4 of 8 (70), lexicographic, each mask once
    assert list(core.SWAP_MASKS[0, :3]) == [0b000111, 0b001011, 0b010011]
    assert list(core.SWAP_MASKS[1, :2]) == [0b00001111, 0b00010111]
    for h, k in ((0, 20), (1, 70)):
        masks = core.SWAP_MASKS[h, :k]
        assert len(set(masks)) == k and (core.SWAP_MASKS[h, k:] == -1).all()
        assert all(bin(int(m)).count("1") == h + 3 for m in masks)


@pytest.mark.parametrize("kw", [dict(players=4), dict(players=4, rules="classic"),
                                dict(players=3, rule=["hand_size=4"]),
                                dict(players=4, rule=["choose_face_ups=true"])],
                         ids=["seed", "classic", "hand4", "v1"])
def test_chosen_cards_go_face_up(kw):
    """A chosen swap id puts exactly the chosen slots' cards face up and the others in the
    hand (R5/V1, the kernel's apply_swap); the deal is still `sim run`'s."""
    from itertools import combinations

    from sim.kernel.layout import DEALER, FU, FUN, NMOVES, R_HAND
    from sim.runs.config import RunConfig
    from sim.runs.onegame import record_game

    env = ShitheadEnv(swap="choose", **kw)
    players = kw["players"]
    gen = np.random.default_rng(7)
    for g in range(3):
        env.reset(seed=11, options={"game": g})
        cfg = RunConfig(games=3, players=players, seed=11, rules=env.spec_.ruleset)
        assert np.array_equal(env.table.dealt, record_game(cfg, g).dealt)   # sim run's deal
        h = int(env.table.st[R_HAND])
        want = {}
        for _ in range(players):
            seat = int(env.agent_selection[5:])
            cards = dealing.swap_choices(env.table.st, seat)
            assert len(cards) == 2 * h
            j = int(gen.integers(len(list(combinations(range(2 * h), h)))))
            slots = list(combinations(range(2 * h), h))[j]
            up = np.bincount(cards[list(slots)], minlength=NR)
            down = np.bincount(np.delete(cards, list(slots)), minlength=NR)
            want[seat] = (up, down)
            env.step(NMOVES + j)
        st = env.table.st
        starter = int(st[CURRENT])
        for seat, (up, down) in want.items():
            assert st[FUN + seat] == h
            assert np.array_equal(st[FU + seat * NR:FU + seat * NR + NR], up)
            hand = st[HANDS + seat * NR:HANDS + seat * NR + NR]
            if env.spec_.ruleset.forced_opening and seat == starter:
                continue                    # H16 has played some of the starter's hand
            assert np.array_equal(hand, down)
        assert 0 <= int(st[DEALER]) < players


def test_choose_keep_is_sim_runs_none():
    """Every seat choosing the first swap id (the dealt face-ups stay up) gives the start of
    `sim run --swap none`, card for card (the kernel applies both)."""
    from sim.kernel.layout import NMOVES
    from sim.runs.config import RunConfig
    from sim.runs.onegame import record_game

    cfg = RunConfig(games=2, players=4, seed=5, swaps=["none"])
    env = ShitheadEnv(players=4, swap="choose")
    for g in range(2):
        env.reset(seed=5, options={"game": g})
        for _ in range(4):
            env.step(NMOVES)
        assert np.array_equal(env.table.st, record_game(cfg, g).start)


def test_choose_some_seats_and_bad_actions():
    from sim.kernel.layout import NMOVES

    env = ShitheadEnv(players=3, swap=["choose", "highest-up", "choose"])
    env.reset(seed=1)
    seen = set()
    while env.table.swapping:
        seen.add(env.agent_selection)
        with pytest.raises(ValueError, match="R24"):
            env.step(0)                                    # a move, in the swap phase
        with pytest.raises(ValueError, match="R24"):
            env.step(NMOVES + 20)                          # id 20: none at hand size 3
        env.step(NMOVES + 5)
    assert seen == {"seat_0", "seat_2"}
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="R24"):
        env.step(NMOVES + 1)                               # a swap, in play
    assert mask[:NMOVES].any()
    lenient = ShitheadEnv(players=3, swap="choose", illegal="lowest")
    lenient.reset(seed=1)
    agent = lenient.agent_selection
    lenient.step(0)
    assert lenient.infos[agent] == {"illegal": True}


def test_no_leak_in_the_swap_phase():
    """In the swap phase a seat sees the state as dealt: its own cards and the public block
    (R26), nothing of the other hands, stock or face-downs, and nothing of the others'
    choices (R5: simultaneous); the choices are made together after the last seat's."""
    from sim.kernel.layout import NMOVES

    for rules in ("seed", "classic"):
        env = ShitheadEnv(players=4, rules=rules, swap="choose")
        twin = ShitheadEnv(players=4, rules=rules, swap="choose")
        env.reset(seed=2)
        twin.reset(seed=2)
        gen = np.random.default_rng(1)
        swapped = 0
        while env.table.swapping:
            for seat in range(4):
                agent = f"seat_{seat}"
                twin.table.st[:], ok = _hidden_variant(env.table.st, seat, gen)
                twin.table.phase = env.table.phase
                swapped += ok
                a, b = env.observe(agent), twin.observe(agent)
                assert np.array_equal(a["observation"], b["observation"])
                assert np.array_equal(a["action_mask"], b["action_mask"])
            twin.table.st[:] = env.table.st
            env.step(NMOVES + int(gen.integers(20)))
            twin.step(NMOVES + int(gen.integers(20)))     # other choices: same views
            if env.table.swapping:
                for agent in env.agents:
                    assert np.array_equal(env.observe(agent)["observation"],
                                          twin.observe(agent)["observation"])
        assert swapped > 0
