"""Compile only what a command uses: strategies compile when first seated, a table
of ``lowest`` compiles its own referee alone; and ``sim.kernel.patches.borrow``'s views write through."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.kernel.compiler import borrow, jit


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (the warm disk cache is shared); its JSON print."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


PATCHED = os.environ.get("SHITHEAD_NUMBA_PATCHES", "1") not in ("0", "none")


def test_every_patch_applies_on_this_numba():
    """Each use of a Numba internal is checked against the shape it expects and falls back to
    Numba's public behaviour otherwise: on a Numba version CI tests, every check must pass
    (else a patch silently stopped paying), and SHITHEAD_NUMBA_PATCHES=0 turns all off."""
    from sim.kernel.patches import ALL_PATCHES, active

    on = {name for name in ALL_PATCHES if active(name)}
    assert on == (set(ALL_PATCHES) if PATCHED else set())


@pytest.mark.slow
def test_a_run_warns_nothing_without_a_global_warnings_filter():
    """First-class functions are "experimental" to Numba, which warns when it types a tuple of
    them; the seam silences it where FnTuple types one, not with a process-wide filter (a run
    and an analysis, whose tuples of strategies are FnTuples)."""
    got = _fresh(
        "import json, warnings\n"
        "from sim.runs.runner import RunConfig, play_batch\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    play_batch(RunConfig(games=20, players=2, strategies=['counting', 'random']), 0, 20, 1)\n"
        "    from sim.studies.analysis import analyze\n"
        "    analyze(json.load(open(%r)), rollouts=5)\n"
        "print(json.dumps([str(w.category.__name__) for w in seen]))\n"
        % str(Path(__file__).resolve().parents[1] / "docs/examples/midgame-seed-4p.json"))
    assert "NumbaExperimentalFeatureWarning" not in got


def test_builtins_compile_when_seated_not_at_import():
    got = _fresh(
        "import json, strategies\n"
        "strategies.load()\n"
        "from sim.kernel.strategy import MOVES\n"
        "from sim.runs.registry import get_move\n"
        "before = {k: len(s.dispatcher.signatures) for k, s in MOVES.items()}\n"
        "s = get_move('counting')\n"
        "fn = s.fn\n"
        "try:\n"                                   # other types: refused, not compiled
        "    fn(1.5, 2, 3, 4, 5); refused = ''\n"
        "except TypeError as e:\n"
        "    refused = str(e)\n"
        "print(json.dumps({'before': before, 'after': len(fn.signatures), 'refused': refused,\n"
        "                  'others': len(MOVES['highest'].dispatcher.signatures)}))\n")
    assert got["after"] == 1                          # one signature: a first-class function
    assert got["refused"].startswith("No matching definition")     # closed to others
    if not PATCHED:       # without the ``lazy`` patch: compiled (loaded) at import, eagerly
        assert set(got["before"].values()) == {1} and got["others"] == 1
        return
    assert set(got["before"].values()) == {0}, got["before"]
    assert got["others"] == 0                         # a strategy nobody seated


def test_a_table_of_basic_builtins_imports_basic_alone_and_others_load_all():
    """``sim run`` with ``lowest`` imports strategies.basic only (25 ms of start-up); any
    other name, and any user's file, first registers every built-in."""
    got = _fresh(
        "import json, sys\n"
        "from sim.runs.registry import get_move, get_swap\n"
        "mods = lambda: sorted(m for m in sys.modules if m.startswith('strategies.'))\n"
        "get_move('lowest'); get_swap('highest-up'); basic = mods()\n"
        "get_move('counting'); print(json.dumps({'basic': basic, 'all': mods()}))\n")
    assert got["basic"] == ["strategies.basic"]
    assert got["all"] == sorted(f"strategies.{m}" for m in
                                ("basic", "swaps", "heuristics", "montecarlo", "peers", "value"))


@pytest.mark.slow
def test_a_jitted_caller_makes_its_lazy_callee_ready_first(tmp_path):
    """montecarlo calls counting: compiling the caller must leave the callee with its one
    signature (or it could no longer be seated as a first-class function); so must a call
    from Python with other argument types. Fresh cache, tiny functions."""
    (tmp_path / "lazymod.py").write_text(
        "from numba import float64, int64\n"
        "from sim.kernel.compiler import jit_lazy\n"
        "SIG = int64(int64)\n"
        "@jit_lazy(SIG)\n"
        "def callee(x):\n    return x + 1\n"
        "@jit_lazy(SIG)\n"
        "def caller(x):\n    return callee(x) * 2\n"
        "@jit_lazy(float64(float64))\n"
        "def other(x):\n    return x / 2\n")
    code = ("import json, sys; sys.path.insert(0, %r)\n"
            "import numpy as np\n"
            "from sim.kernel.compiler import ready\n"
            "import lazymod as m\n"
            "ready(m.caller)\n"
            "r = m.other(3)\n"               # an int from Python: converted, not recompiled
            "try:\n"                         # an array: refused, not compiled (closed)
            "    m.callee(np.arange(3)); refused = ''\n"
            "except TypeError as e:\n"
            "    refused = str(e).split(' for ')[0]\n"
            "print(json.dumps({'callee': [len(m.callee.signatures), refused],\n"
            "                  'caller': m.caller(np.int32(4)), 'other': [r,\n"
            "                  len(m.other.signatures)]}))\n" % str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={**os.environ, "SHITHEAD_CACHE_DIR": str(tmp_path)})
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"callee": [1, "No matching definition"], "caller": 10, "other": [1.5, 1]}


def test_a_table_of_lowest_compiles_only_its_own_referee():
    got = _fresh(
        "import json\n"
        "from sim.runs.runner import RunConfig, run\n"
        "from sim.kernel import referee as core\n"
        "run(RunConfig(games=50, players=4, seed=1, strategies=['lowest'], threads=1))\n"
        "print(json.dumps({'lowest': len(core.run_alone.signatures),\n"
        "                  'any': len(core.run_games.signatures)}))\n")
    assert got == {"lowest": 1, "any": 0}


def test_only_a_table_that_seats_a_peer_compiles_the_peers_inlined():
    """The peers' bots (sim.kernel.fastpath.choose_peers) cost the compile of every other
    table nothing: counting compiles run_games, a table with simple run_peers alone."""
    got = _fresh(
        "import json\n"
        "from sim.runs.runner import RunConfig, run\n"
        "from sim.kernel import referee as core\n"
        "def counts():\n"
        "    return [len(f.signatures) for f in (core.run_games, core.run_peers)]\n"
        "run(RunConfig(games=20, players=4, seed=1, strategies=['counting'], threads=1))\n"
        "a = counts()\n"
        "run(RunConfig(games=20, players=4, seed=1, strategies=['counting', 'simple'] * 2,\n"
        "              threads=1))\n"
        "print(json.dumps({'counting': a, 'with simple': counts()}))\n")
    assert got == {"counting": [1, 0], "with simple": [1, 1]}


def test_compiling_is_announced_only_for_the_referee_a_table_uses(monkeypatch):
    """'compiling (first run only)' asks the compile cache about the referee the
    command's tables play through: a user of lowest alone, whose run_alone is cached, is
    not told at every run that the core compiles (it was, while run_games was not cached)."""
    from sim.kernel import compiler
    from sim.kernel import referee as core
    from sim.runs.batch import compiled, entry
    from sim.runs.config import RunConfig

    def table(*names):
        return RunConfig(games=10, players=4, seed=1, strategies=list(names), threads=1)
    lowest, counting, peers = table("lowest"), table("counting"), table(*["counting", "simple"] * 2)
    assert (entry(lowest), entry(counting), entry(peers)) == (
        core.run_alone, core.run_games, core.run_peers)
    seated = {s.dispatcher for s in (*lowest.move_objs, *lowest.swap_objs)}
    monkeypatch.setattr(compiler, "cached", lambda f: f is core.run_alone or f in seated)
    assert compiled([lowest])
    assert not compiled([counting]) and not compiled([lowest, peers]) and not compiled()
    # a seated strategy not in the cache compiles too (montecarlo: ~40 s), even where the
    # referee is cached: a tournament with it sat silent that long
    bot = table("montecarlo")
    monkeypatch.setattr(compiler, "cached", lambda f: f is core.run_games or f in seated)
    assert not compiled([bot])
    monkeypatch.setattr(compiler, "cached", lambda f: True)
    assert compiled([bot])


@jit
def _write_through(a):
    v = borrow(a)
    v[1] = 7
    w = v[2:]                 # a view of the view
    w[0] = 9
    a[0] = a[0]               # the owner stays in use after its views
    return v[1] + w[0]


def test_borrow_is_a_view_of_the_same_memory():
    a = np.zeros(4, np.int64)
    assert _write_through(a) == 16
    assert a.tolist() == [0, 7, 9, 0]


@pytest.mark.slow
def test_a_run_spares_scipy_linalg_and_injects_nothing():
    """Loading the cached core without Numba's refresh (the ``load`` patch) never runs
    Numba's BLAS check, which imports all of scipy.linalg (0.2 s of ``sim run``); the seam no
    longer preloads SciPy's cython_blas under its name (no sys.modules injection).
    A jitted np.dot still works, and scipy.linalg imports as usual afterwards."""
    got = _fresh(
        "import json, sys\n"
        "import numpy as np\n"
        "from sim.runs.runner import RunConfig, play_batch\n"
        "play_batch(RunConfig(games=10), 0, 10, 1)\n"
        "linalg = 'scipy.linalg' in sys.modules\n"
        "injected = 'scipy.linalg.cython_blas' in sys.modules and not linalg\n"
        "import numba\n"
        "dot = numba.njit(lambda a: np.dot(a, a))(np.arange(3.0))\n"
        "import scipy.linalg\n"
        "x = scipy.linalg.solve(np.eye(2) * 2, np.ones(2)).tolist()\n"
        "print(json.dumps({'linalg': linalg, 'injected': injected, 'dot': dot,\n"
        "                  'solve': x}))\n")
    patched = os.environ.get("SHITHEAD_NUMBA_PATCHES", "1") not in ("0", "none")
    assert got == {"linalg": not patched, "injected": False, "dot": 5.0, "solve": [0.5, 0.5]}


def test_the_console_script_prints_the_whole_summary():
    """``sim`` (sim.cli.app.main, with its garbage-collector settings) prints everything."""
    out = subprocess.run([sys.executable, "-m", "sim.cli", "run", "--games", "200", "--json"],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    assert d["overall"]["games"] == 200 and len(d["by_seat"]) == 4


def test_a_borrowed_view_emits_no_reference_counting():
    """sim.kernel.patches.Borrowed: Numba finds no meminfo in a borrowed view, so it emits no
    NRT_incref/NRT_decref for it (a plain array has one); the view's slices are plain arrays;
    a mixed table (first-class strategies get converted views) plays as before."""
    from llvmlite import ir
    from numba.core import types
    from numba.core.registry import cpu_target

    from sim.kernel.patches import Borrowed

    ctx = cpu_target.target_context.subtarget(enable_nrt=True)   # a copy: nothing shared
    fn = ir.Function(ir.Module(), ir.FunctionType(ir.VoidType(), []), "f")
    builder = ir.IRBuilder(fn.append_basic_block())

    def meminfos(ty):
        value = ir.Constant(ctx.get_value_type(ty), ir.Undefined)
        return len(ctx.nrt.get_meminfos(builder, ty, value))

    assert meminfos(types.Array(types.int32, 1, "C")) == 1
    assert meminfos(Borrowed(types.int32, 1, "C")) == 0
    assert type(Borrowed(types.int32, 1, "C").copy(layout="A")) is types.Array

    @jit
    def sliced(a):
        x = borrow(a)
        return x[1:].sum() + x[0]

    assert sliced(np.arange(5, dtype=np.int32)) == 10


def test_a_tuple_of_strategy_functions_is_typed_once():
    """sim.kernel.compiler.FnTuple: Numba types it as the plain tuple, and works it out only once."""
    import numba

    from sim.kernel.compiler import _FN_TYPES, FnTuple
    from sim.runs.registry import get_move

    fns = (get_move("lowest").fn, get_move("random").fn)
    before = len(_FN_TYPES)
    assert numba.typeof(FnTuple(fns)) == numba.typeof(fns)
    assert numba.typeof(FnTuple(fns)) == numba.typeof(fns)
    assert len(_FN_TYPES) <= before + 1


_LOAD_AND_PLAY = (
    "import hashlib, json, sys, numpy as np\n"
    "from numba.core import caching\n"
    "from sim.kernel import compiler as _jit\n"
    "numbas = caching.Cache.load_overload\n"
    "_jit.install()\n"                      # what an entry point does first
    "from sim.runs.runner import RunConfig, play_batch\n"
    "from numba.core.base import BaseContext\n"
    "refreshes, refresh = [], BaseContext.refresh\n"
    "BaseContext.refresh = lambda self: refreshes.append(1) or refresh(self)\n"
    "b = play_batch(RunConfig(games=300, players=4, seed=5, strategies=['lowest', 'random'] * 2,\n"
    "                         swaps=['highest-up', 'none'] * 2), 0, 300, 1)\n"
    "digest = hashlib.sha256(b.turns.tobytes() + b.order.tobytes()).hexdigest()\n"
    "refreshed = len(refreshes) > 0\n"
    "arrays = 'numba.np.arrayobj' in sys.modules\n"
    "f = _jit.jit(cache=False)(lambda a: np.cumsum(np.sort(a))[-1])\n"   # compiled after it
    "print(json.dumps({'digest': digest, 'refreshed': refreshed, 'arrays': arrays,\n"
    "                  'new': int(f(np.arange(5))),\n"
    "                  'patched': caching.Cache.load_overload is not numbas}))\n")


@pytest.mark.slow
def test_loading_from_the_cache_without_numbas_refresh_plays_the_same_games():
    """sim.kernel.patches' ``load`` patch skips Numba's refresh of its whole compiler context
    when it loads cached code (0.1 s of every command's start-up): fresh processes with and
    without it play the same games, and a function compiled afterwards still compiles."""
    from sim.kernel.compiler import active

    if not active("load"):
        return        # switched off (or its Numba internal changed): nothing to compare
    runs = {}
    patches = {"numba": "cache,lazy,borrow", "ours": "cache,lazy,borrow,load"}
    for mode in ("numba", "ours"):
        out = subprocess.run([sys.executable, "-c", _LOAD_AND_PLAY], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "SHITHEAD_NUMBA_PATCHES": patches[mode]}).stdout
        runs[mode] = json.loads(out.strip().splitlines()[-1])
    assert runs["numba"]["digest"] == runs["ours"]["digest"]
    assert runs["numba"]["new"] == runs["ours"]["new"] == 10
    assert not runs["numba"]["patched"] and runs["ours"]["patched"]
    # what the patch spares (read before ``f`` is compiled, which refreshes the context)
    assert runs["numba"]["refreshed"] and not runs["ours"]["refreshed"]
    # nor does the loaded core need Numba's array implementation: it allocates nothing
    # (sim.kernel.referee.scratch, baseline.random_swap), which spares its import (30 ms)
    assert not runs["ours"]["arrays"]


def test_the_inline_patch_copies_a_callees_scope_once_per_copy_not_per_block(monkeypatch):
    """sim.kernel.patches' ``inline`` patch: Numba's inliner deep-copies an inlined
    function's IR with one memo for all its blocks, so its scope (every variable) is copied
    once per copy of the IR instead of once per block (a cost that grew with the square of
    the batch core's inlined code); the compiled function answers the same."""
    import copy

    from numba.core import inline_closurecall, ir

    from sim.kernel.compiler import active, install

    install()
    if not active("inline"):
        return        # switched off (or its Numba internal changed): nothing to compare
    patched = inline_closurecall.InlineWorker.inline_ir
    copies = []

    def scope_copy(self, memo):               # a plain deep copy, counted
        copies.append(1)
        new = ir.Scope.__new__(ir.Scope)
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    monkeypatch.setattr(ir.Scope, "__deepcopy__", scope_copy, raising=False)

    def branches(x):                          # several blocks to copy
        y = 0
        for i in range(4):
            if (x >> i) & 1:
                y += i
            elif x > 9:
                y -= 1
        return y

    counts, answers = {}, {}
    for mode, inline_ir in (("numba", patched.numba), ("ours", patched)):
        monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir", inline_ir)
        callee = jit(inline="always", cache=False)(branches)
        caller = jit(cache=False)(lambda x: callee(x) + 2 * callee(x + 1))
        del copies[:]
        answers[mode] = [caller(x) for x in range(16)]
        counts[mode] = len(copies)
    assert answers["numba"] == answers["ours"] == [branches(x) + 2 * branches(x + 1)
                                                   for x in range(16)]
    assert 0 < 3 * counts["ours"] <= counts["numba"]


def test_the_numba_range_is_the_range_ci_tests():
    """pyproject.toml allows exactly the Numba minors from the oldest to the newest that
    .ci/run tests, and the running Numba is inside it."""
    import re
    from pathlib import Path

    import numba

    root = Path(__file__).resolve().parents[1]
    spec = re.search(r'"numba>=(\d+)\.(\d+),<(\d+)\.(\d+)"', (root / "pyproject.toml").read_text())
    ci = (root / ".ci" / "run").read_text()
    oldest = re.search(r"^NUMBA_OLDEST=(\d+)\.(\d+)$", ci, re.M)
    newest = re.search(r"^NUMBA_NEWEST=(\d+)\.(\d+)$", ci, re.M)
    low, high = (int(spec[1]), int(spec[2])), (int(spec[3]), int(spec[4]))
    assert low == (int(oldest[1]), int(oldest[2]))
    assert high == (int(newest[1]), int(newest[2]) + 1)           # below the next minor
    running = tuple(int(x) for x in numba.__version__.split(".")[:2])
    assert low <= running < high


def _borrowed_roots(fn):
    """(name, is a parameter never rebound) for the array under each ``borrow(...)`` call of
    the function ``fn`` (an ``ast.FunctionDef``), through slices and attributes."""
    import ast

    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    rebound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
               and isinstance(n.ctx, ast.Store)}
    for call in ast.walk(fn):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "borrow"):
            root = call.args[0]
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            name = getattr(root, "id", ast.dump(root))
            yield name, name in params and name not in rebound


def test_a_borrowed_view_points_only_into_an_array_its_caller_holds():
    """sim.kernel.patches.borrow's view keeps no reference: it is safe only as long as its
    array lives. So every ``borrow(x)`` views a parameter of its function (or a slice or field
    of one) that the function never rebinds: the caller holds it for the whole call, and no
    line exists whose removal would free it while a view is in use."""
    import ast

    root = Path(__file__).resolve().parents[1]
    bad, seen = [], 0
    for path in sorted([*root.glob("sim/**/*.py"), *root.glob("strategies/*.py"),
                        *root.glob("benchmarks/*.py")]):
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, ast.FunctionDef):
                for name, held in _borrowed_roots(fn):
                    seen += 1
                    if not held:
                        bad.append(f"{path.relative_to(root)}:{fn.lineno} {fn.name}: {name}")
    assert seen > 10 and not bad, bad


def test_the_fnaddr_patch_answers_numbas_addresses_from_a_memo(monkeypatch):
    """sim.kernel.patches' ``fnaddr`` patch: the addresses of a first-class strategy that
    Numba's unboxing asks for at every call of the core come from a memo, and are the ones
    Numba's own functions give; the games are the same with and without it."""
    import numba
    from numba.experimental import function_type

    from sim.kernel.compiler import active, install
    from sim.runs.runner import RunConfig, play_batch

    install()
    if not active("fnaddr"):
        return        # switched off (or its Numba internal changed): Numba's own functions
    cfg = RunConfig(games=1, players=3, seed=5, strategies=["lowest", "random", "counting"])
    patched = play_batch(cfg, 0, 60, 1)
    wrapper, jit_address = function_type._get_wrapper_address, function_type._get_jit_address
    for fns in (cfg.pool.moves, cfg.pool.swaps):
        sig = numba.typeof(fns).dtype.signature     # an FnTuple: typed once, no warning
        for f in fns:
            for get in (wrapper, jit_address):
                assert get(f, sig) == get(f, sig) == get.numba(f, sig) > 0
    monkeypatch.setattr(function_type, "_get_wrapper_address", wrapper.numba)
    monkeypatch.setattr(function_type, "_get_jit_address", jit_address.numba)
    numbas = play_batch(cfg, 0, 60, 1)
    for name in ("status", "turns", "order", "pickups"):
        np.testing.assert_array_equal(getattr(patched, name), getattr(numbas, name))


def test_the_fnaddr_memo_stays_bounded_and_forgets_a_recompiled_function():
    """The ``fnaddr`` memo: past its size it starts afresh (were Numba to hand a new signature
    object at every call), and ``Dispatcher.recompile`` drops the function's entries, whose
    addresses it changes; every answer is still Numba's own."""
    import pickle

    import numba
    from numba.experimental import function_type

    from sim.kernel import patches
    from sim.kernel.patches import active, install

    install()
    if not active("fnaddr"):
        return        # switched off (or its Numba internal changed): nothing memoized
    f = numba.njit("int64(int64)")(lambda x: x + 1)
    sig = f.overloads[f.signatures[0]].signature
    get = function_type._get_wrapper_address
    want = get.numba(f, sig)
    kept = []
    for _ in range(patches._MOST + 10):
        fresh = pickle.loads(pickle.dumps(sig))       # an equal signature, a new object
        kept.append(fresh)                            # alive: its id is not reused
        assert get(f, fresh) == want
        assert len(patches._MEMO) <= patches._MOST
    assert any(k[1] == id(f) for k in patches._MEMO)
    f.recompile()
    assert not any(k[1] == id(f) for k in patches._MEMO)
    assert get(f, sig) == get.numba(f, sig) > 0
