"""``montecarlo``: a search around ``counting`` that plays its candidate moves out.

At each decision with more than one candidate, the strategy asks ``counting`` for its move,
then searches the candidates: the largest play of each legal rank (splitting a pair or
triple is never searched; 5 to 8 cards with two decks, H18), pick-ups only when no play is
legal (``pickups=0``, default; 1 searches them too, with every k of a one_then_rank pick-up,
H11), and ``counting``'s move, which may be a pick-up on purpose. In a chain (H19) the
candidates are every continuation and ``END``; every opponent model plays its own chains in
the playouts. It samples
the cards it cannot see, consistent with what its player knows (R26: the unseen cards dealt
at random into the other hands' unknown part, every face-down stack and the stock), and in
each sampled world plays every candidate out with the same random stream (common random
numbers), for at most ``horizon`` turns (40): ``rollouts`` playouts a decision (120), spent by
sequential halving (``halving=1``, default: rounds after which only the better half of the
moves plays on) or ``rollouts // candidates`` worlds for every candidate (``halving=0``). A playout cut at the horizon is scored by a learned value of the world it
reached (``learned=1``, default: :mod:`strategies.value`, fitted on simulated games of this
same mixture; ``learned=0`` counts it as lost): a cut playout costs a
fraction of a full one, and its score is less noisy than one game's result.

Who plays what in the playouts is the opponent model. By default (``model=4``) it is a
mixture: in each sampled world every other seat is given one of the built-in ways of playing,
drawn with the weights ``w_lowest``, ``w_counting``, ``w_save`` (save-specials), ``w_random``,
``w_highest``, ``w_cheapest`` (2.81, 2.45, 2.40, 0.64, 0, 0: tuned by ``sim tune``), and plays
it for the whole playout, while the searching seat plays ``own`` (1: ``counting``); every
candidate meets the same draw. A move is chosen for doing well against the whole family,
not against one guess: a bot that models every seat as one strategy counts on opponents that
may not play so (docs/strategies.md has the measurements). Other models: 0 every seat ``lowest``; 1 every seat ``counting``; 2 each seat ``lowest`` or
``counting``, per playout; 3 ``counting`` without its blocking rule; 5 the mixture with
counting's seats (and its own) played without that rule; and ``noise``, a share of random
moves in any model (0 by default). ``halving=1`` spends the playouts by sequential halving
(:func:`evaluate`).

The score of a playout is 1 for a win (seed rules) or, under V2, the share of the other
seats finished behind. The best candidate by mean score replaces ``counting``'s move only
when its mean paired difference with it is ``prior`` standard errors above 0 (about 1);
otherwise, and whenever the search cannot tell the moves apart (a position it loses in every
playout, say), the strategy plays ``counting``'s move, never an arbitrary first legal move
that would feed the next seat. Everything runs inside the Numba core.

The sampler and the playouts are compiled with the project's options (no bounds checks):
they read only the observation and the strategy's own hand, like any strategy.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import borrow, jit
from sim.kernel.cards import NRANK, TWO
from sim.kernel import baseline
from sim.kernel.engine import apply_with, legal_from, rules_of
from sim.kernel.layout import (
    ADD, BIG, CURRENT, DECK, EV_GAME_OVER, EV_OUT, FU, HANDN, HANDS, L_BIG, L_END, L_PICKUP,
    MAXP, NMOVES, NOUT, OUTORDER, PICKUP, PILELEN, PLAYERS, PUB, STATE_SIZE, STOCKLEN, V2,
)
from sim.kernel.moves import (
    big_word, count_legal, has, lowest_bit, most_big, most_cards, move_cards, nth_legal, play_ranks,
)
from sim.kernel.referee import deal_unswapped, inlined_apply, opening_move
from sim.kernel.rng import next_u64, randint, seed_game, splitmix64, uniform
from sim.kernel.sampling import sample_world
from sim.kernel.strategy import move_strategy
from strategies.heuristics import (
    BREAK, SHED, card_cost, chain_move, counting, forced_move, highest, largest_play,
    pickup_move, save_specials, wild,
)
from strategies.peers import cheapest, prepare_cheapest
from strategies.value import COEF, NFEAT, seat_features, value as position_value

# The opponent models of the mixture (model=4), in the order of their weights' parameters.
POLICIES = ("lowest", "counting", "save-specials", "random", "highest", "cheapest")
NPOL = len(POLICIES)
_CHEAPEST_ROW = prepare_cheapest({"order": "4 5 6 7 8 9 J Q K A 3 2 10", "hold_back": 7})
_SAVE_ROW = np.array([6.0])


# ``lowest`` and ``random`` themselves (one source, :mod:`sim.kernel.baseline`), inlined into
# the playouts; given the whole state as their hand (sim.kernel.moves.big_word finds it).
_lowest = jit(inline="always")(baseline.lowest)
_random = jit(inline="always")(baseline.random_move)
# The other models, the very same functions compiled with the project's options: a registered
# strategy is compiled with bounds checks (R26: a user's strategy must not read past its
# observation), which these built-ins, read here, do not need in the playouts; the two of
# the default mixture inlined (a call passing array views cost counting a third of its turn).
_counting, _save = (jit(inline="always")(f.py_func) for f in (counting, save_specials))
_highest, _cheapest = (jit(f.py_func) for f in (highest, cheapest))


@jit(inline="always")
def _lite(legal, st):
    """``counting`` without its blocking rule (a cheaper playout policy): the play that sheds
    most for the lowest cost without breaking a set, by its weights, 2s kept over 3..Q, the
    lowest face-up added to a pick-up; counting's rule in a chain (H19,
    :func:`strategies.heuristics.chain_move`)."""
    ranks = play_ranks(legal)
    p = st[CURRENT]
    if ranks == 0:
        if has(legal, L_BIG):                # H18: only plays of 5 to 8 cards are legal
            return forced_move(st, st, legal, False)
        return pickup_move(st, legal)
    if has(legal, L_END):                    # H19: counting's rule in a chain
        return chain_move(st, st, legal)
    if ((ranks & ~wild(st)) == 0 and has(legal, L_PICKUP) and st[STOCKLEN] > 0
            and st[PILELEN] <= 3):
        return PICKUP
    from_hand = st[HANDN + p] > 0
    best = -1
    best_score = -1e300
    bigs = has(legal, L_BIG)
    bits = ranks
    while bits:
        r = lowest_bit(bits)
        bits &= bits - 1
        m = most_cards(legal, r)
        if bigs:                             # H18: 5 to 8 cards too
            m = largest_play(legal, r, st, st)
        c = move_cards(m)
        score = SHED * c - card_cost(r)
        held = st[HANDS + p * NRANK + r] if from_hand else st[FU + p * NRANK + r]
        if held > c:
            score -= BREAK
        if score >= best_score if r < TWO else score > best_score:
            best_score, best = score, m
    return best


@jit
def _score(st, me):
    """1 for a win (seed rules); under V2 the share of seats finished behind ``me``."""
    players = st[PLAYERS]
    if st[V2] == 0:
        return 1.0 if st[NOUT] > 0 and st[OUTORDER] == me else 0.0
    for i in range(st[NOUT]):
        if st[OUTORDER + i] == me:
            return (players - 1 - i) / (players - 1)
    return 0.0


@jit(inline="always")
def _policy_move(pol, st, word, rng, counting_params, lite):
    """The move of opponent model ``pol`` (an index into :data:`POLICIES`) for the seat to
    move in the world ``st``: it sees that world's public part and its own hand only.
    ``lite``: ``counting`` without its blocking rule (:func:`_lite`) in counting's place."""
    p = st[CURRENT]
    hand = st[HANDS + p * NRANK:HANDS + p * NRANK + NRANK]
    if pol == 0:
        return _lowest(st, hand, word, rng, st)
    if pol == 1:
        if lite:
            return _lite(word, st)
        return _counting(st[:PUB], hand, word, rng, counting_params)
    if pol == 2:
        return _save(st[:PUB], hand, word, rng, _SAVE_ROW)
    if pol == 3:
        return _random(st, st, word, rng, st)
    if pol == 4:
        return _highest(st[:PUB], hand, word, rng, _SAVE_ROW)
    return _cheapest(st[:PUB], hand, word, rng, _CHEAPEST_ROW)


@jit
def draw_models(rng, weights, me, players, assign, own=1):
    """Per seat, an opponent model drawn from ``weights`` (model=4); ``me`` plays ``own``
    (an index into :data:`POLICIES`, counting by default)."""
    total = 0.0
    for i in range(NPOL):
        total += weights[i]
    for s in range(players):
        assign[s] = own if s == me else 1
        if s == me or total <= 0.0:
            continue
        u = uniform(rng) * total
        for i in range(NPOL):
            u -= weights[i]
            if u < 0.0 or i == NPOL - 1:
                assign[s] = i
                break


@jit
def _playout(world, m, me, stream, horizon, noise, model, policy_params, seat_models, coef,
             value_scratch, features):
    """Apply ``m`` to the world ``world`` and play on with the playout policy, drawing from
    ``stream``; the score. The ruleset's scalars are read once a playout
    (:func:`sim.kernel.engine.rules_of`), and V2's "my place is decided" only after a seat
    goes out. A playout stopped at ``horizon`` turns scores 0 unless ``coef`` is not empty:
    then the learned value of the world (:func:`strategies.value.value`, with
    ``value_scratch``, ``features`` its scratch). ``seat_models``: each seat's policy
    (:func:`draw_models`), ``policy_params``: counting's."""
    # views without reference counts (sim.kernel.patches.borrow), handed on at every turn,
    # into arrays the caller holds for the whole call (benchmarks/playout_cost.py)
    st, rng, counting_params = borrow(world), borrow(stream), borrow(policy_params)
    assign, vs, fs = borrow(seat_models), borrow(value_scratch), borrow(features)
    rz = rules_of(st)
    ev = inlined_apply(st, m, rz)
    turns = 0
    mix = 0
    if model == 2:                           # each seat lowest or counting, per playout
        mix = randint(rng, 1 << max(6, st[PLAYERS]))   # 6: the draws of up to 6 seats
    while not ev & EV_GAME_OVER and turns < horizon:
        if ev & EV_OUT and st[V2] and _score(st, me) > 0:
            break                            # V2: my place is decided
        word = legal_from(st, rz)
        p = st[CURRENT]
        if noise > 0 and uniform(rng) < noise:
            m2 = _random(st, st, word, rng, st)
        else:
            # every model through the one inlined call (one copy of counting to compile;
            # inlined: a mixture turn is faster, benchmarks/playout_cost.py)
            if model >= 4:
                pol = assign[p]
            elif model == 1 or model == 3 or (model == 2 and (mix >> p) & 1):
                pol = 1
            else:
                pol = 0
            m2 = _policy_move(pol, st, word, rng, counting_params, model == 5 or model == 3)
        ev = inlined_apply(st, m2, rz)
        turns += 1
    if coef.shape[0] > 0 and not ev & EV_GAME_OVER and turns >= horizon:
        return position_value(st, me, coef, vs, fs)
    return _score(st, me)


@jit(inline="always")
def _rank_bits(r):
    """The bits of rank ``r`` in a big word (:func:`sim.kernel.moves.big_word`)."""
    return (np.int64(1) | (np.int64(1) << NRANK) | (np.int64(1) << (2 * NRANK))
            | (np.int64(1) << (3 * NRANK))) << r


@jit
def candidates(obs, hand, legal, base, pickups, cand):
    """Write the moves worth searching into ``cand``; return how many. Plays: the largest
    play of each legal rank (splitting a pair or triple is never searched; 5 to 8 cards with
    two decks, H18); in a chain (H19) every continuation and ``END`` (going on with fewer
    cards than all is keeping some back, as ``END`` keeps all); pick-ups and adds (every k of a one_then_rank pick-up, H11): with
    ``pickups`` 0 only when no play is legal; and ``base`` (the heuristic's own choice,
    which may be a pick-up on purpose) in any case."""
    plays = legal & ((np.int64(1) << ADD) - 1)
    if pickups == 0 and plays:
        legal = plays | (legal & ((np.int64(1) << L_END) | (np.int64(1) << L_BIG)))
    big = big_word(obs, hand) if has(legal, L_BIG) else np.int64(0)
    every = has(legal, L_END)
    k = 0
    found = False
    for i in range(count_legal(legal, obs)):
        m = nth_legal(legal, obs, i)
        if m >= ADD or every or (m == most_cards(legal, m % NRANK)
                                 and most_big(big, m % NRANK) < 0):
            cand[k] = m
            k += 1
            found |= m == base
    while big:                               # H18: plays of 5 to 8 (in a chain: every one)
        b = lowest_bit(big)
        m = BIG + b if every else most_big(big, b % NRANK)
        big &= ~(np.int64(1) << b) if every else ~_rank_bits(b % NRANK)
        cand[k] = m
        k += 1
        found |= m == base
    if not found:
        cand[k] = base
        k += 1
    return k


@jit
def evaluate(obs, hand, legal, rng, rollouts, horizon, noise, model, pickups, prior, weights,
             own=1, halving=0, learned=0):
    """The candidate move with the best mean playout score, if it beats ``counting``'s own
    choice clearly enough; else ``counting``'s choice.

    Every candidate still in the race is played out in the same sampled worlds, with the
    same random stream (common random numbers). ``halving`` 0: every candidate in
    ``rollouts // candidates`` worlds. ``halving`` 1: sequential halving, ``rollouts``
    playouts split over ceil(log2 candidates) rounds; after each round only the better half
    by mean score (and ``counting``'s move, always) plays on, so that the playouts go to the
    moves still close to the best. A candidate replaces the heuristic's move only when its
    mean paired difference in score (over the worlds both played) is positive and ``prior``
    standard errors or more away from 0. ``learned`` 1: a playout cut at ``horizon`` turns
    is scored by the learned value (:mod:`strategies.value`), not as a loss."""
    counting_params = np.array([3.0])
    coef = COEF.copy() if learned else np.empty(0)
    base = counting(obs, hand, legal, rng, counting_params)
    cand = np.empty(NMOVES + 1, np.int64)
    k = candidates(obs, hand, legal, base, pickups, cand)
    if k == 1:
        return cand[0]
    ib = 0
    for i in range(k):
        if cand[i] == base:
            ib = i
    me = obs[CURRENT]
    st = np.empty(STATE_SIZE, np.int32)
    world = np.empty(STATE_SIZE, np.int32)
    pool = np.empty(DECK, np.int32)
    prng = np.empty(4, np.uint64)
    total = np.zeros(k)
    dsum = np.zeros(k)                       # paired differences with the heuristic's move
    dsq = np.zeros(k)
    sc = np.zeros(k)
    alive = np.arange(k)                     # the candidates still in the race, first n
    n = k
    rounds = 1
    if halving:
        while (1 << rounds) < k:
            rounds += 1
    assign = np.ones(MAXP, np.int64)
    vs = np.empty(MAXP)                      # the learned value's scratch
    fs = np.empty(NFEAT)
    worlds = 0
    for rnd in range(rounds):
        w = max(1, rollouts // k) if rounds == 1 else max(1, rollouts // (rounds * n))
        for _ in range(w):
            sample_world(obs, hand, rng, world, pool)
            if model >= 4:
                draw_models(rng, weights, me, obs[PLAYERS], assign, own)
            s0 = next_u64(rng)
            for a in range(n):
                i = alive[a]
                st[:] = world
                x = s0                       # the same playout stream for every candidate
                for j in range(4):
                    x = splitmix64(x)
                    prng[j] = x
                sc[i] = _playout(st, cand[i], me, prng, horizon, noise, model,
                                 counting_params, assign, coef, vs, fs)
                total[i] += sc[i]
            for a in range(n):
                i = alive[a]
                d = sc[i] - sc[ib]
                dsum[i] += d
                dsq[i] += d * d
        worlds += w
        if rnd == rounds - 1 or n <= 2:
            break
        # keep the better half (ties to the earlier candidate), and the heuristic's move
        order = np.argsort(-total[alive[:n]], kind="mergesort")
        keep = (n + 1) // 2
        kept = np.empty(n, np.int64)
        m = 0
        has_base = False
        for a in range(keep):
            kept[m] = alive[order[a]]
            has_base |= kept[m] == ib
            m += 1
        if not has_base:
            kept[m] = ib
            m += 1
        alive[:m] = kept[:m]
        n = m
    best = ib
    for a in range(n):
        i = alive[a]
        if total[i] > total[best] or (total[i] == total[best] and i < best and best != ib):
            best = i
    if best == ib:
        return base
    mean = dsum[best] / worlds
    # a sample in which every paired difference was the same says little about their spread:
    # floor the variance at one world's worth, so that a huge prior always keeps the base
    var = max(dsq[best] / worlds - mean * mean, 1.0 / worlds)
    if mean * mean * worlds <= prior * prior * var:
        return base                          # not clearly better than the heuristic
    return cand[best]


@move_strategy(
    "montecarlo",
    "search around counting: plays its move and the largest play of every other legal rank "
    "out in the same sampled worlds (`rollouts` playouts per decision, cut at `horizon` "
    "turns and scored by a learned value), each other seat "
    "imagined as lowest, counting, save-specials or random (weights `w_*`); deviates from "
    "counting only when a move wins clearly more (`prior`); in a chain (H19) END and every "
    "continuation are candidates like any move (counting's own rule the default), and the "
    "playouts play chains by each seat's model",
    swap="highest-up",
    params={"rollouts": (120, 1, 1_000_000), "horizon": (40, 10, 100_000),
            "noise": (0.0, 0.0, 1.0), "model": (4, 0, 5), "pickups": (0, 0, 1),
            # prior and w_*: tuned by `sim tune` (docs/strategies.md), checked on fresh deals
            "prior": (1.0531, 0.0, 100.0),
            "w_lowest": (2.8146, 0.0, 10.0), "w_counting": (2.4494, 0.0, 10.0),
            "w_save": (2.3973, 0.0, 10.0), "w_random": (0.6413, 0.0, 10.0),
            "w_highest": (0.0, 0.0, 10.0), "w_cheapest": (0.0, 0.0, 10.0),
            "own": (1, 0, NPOL - 1), "halving": (1, 0, 1), "learned": (1, 0, 1)},
)
def montecarlo(obs, hand, legal, rng, params):
    return evaluate(obs, hand, legal, rng, np.int64(params[0]), np.int64(params[1]),
                    params[2], np.int64(params[3]), np.int64(params[4]), params[5],
                    params[6:6 + NPOL], np.int64(params[6 + NPOL]),
                    np.int64(params[7 + NPOL]), np.int64(params[8 + NPOL]))


@jit
def mixture_positions(seed, games, players, rules, weights, every, feats, alive, place, turn):
    """Positions of simulated games for fitting :mod:`strategies.value`: game ``g`` is dealt
    from ``seed`` (no swaps), a random seat plays ``counting`` and the others the mixture's
    models drawn from ``weights``, as in the playouts (model=4). Every ``every`` turns the
    features of every seat go to ``feats[row, seat]`` and which seats are still in to
    ``alive``; at the end ``place[row, seat]`` is the seat's place (0 first out, 99 never out)
    and ``turn[row]`` the turn. Games not over in 1000 turns are left out. Returns the rows."""
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    assign = np.ones(MAXP, np.int64)
    counting_params = np.array([3.0])
    f = np.empty(NFEAT)
    n = 0
    for g in range(games):
        if n >= feats.shape[0]:
            break
        seed_game(rng, seed, g)
        deal_unswapped(st, rng, players, rules)
        draw_models(rng, weights, randint(rng, players), players, assign, 1)
        rz = rules_of(st)
        start = n
        t = 0
        ev = 0
        m = opening_move(st)
        if m >= 0:
            ev = apply_with(st, m, rz)
            t = 1
        while not ev & EV_GAME_OVER and t < 1000:
            if t % every == 0 and n < feats.shape[0]:
                for s in range(players):
                    seat_features(st, s, f)
                    feats[n, s, :] = f
                    alive[n, s] = 1
                for i in range(st[NOUT]):
                    alive[n, st[OUTORDER + i]] = 0
                turn[n] = t
                n += 1
            word = legal_from(st, rz)
            m2 = _policy_move(assign[st[CURRENT]], st, word, rng, counting_params, False)
            ev = apply_with(st, m2, rz)
            t += 1
        if not ev & EV_GAME_OVER:
            n = start
            continue
        for r in range(start, n):
            place[r, :] = 99
            for i in range(st[NOUT]):
                place[r, st[OUTORDER + i]] = i
    return n


__all__ = ["montecarlo", "evaluate", "candidates", "mixture_positions", "MAXP"]
