"""The compile cache is keyed by the project's sources: Numba checks only the timestamp of a
cached function's own file, so a function inlining a helper of another file would keep the
old helper after that file changed."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.kernel.compiler import cache_dir

ROOT = Path(__file__).resolve().parents[1]


def test_cache_folder_changes_with_any_project_source(tmp_path, monkeypatch):
    monkeypatch.setenv("SHITHEAD_CACHE_DIR", str(tmp_path / "cache"))
    for folder in ("sim", "strategies"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    first = cache_dir(tmp_path)
    assert first.parent == tmp_path / "cache"
    assert cache_dir(tmp_path) == first                       # stable
    engine = tmp_path / "sim" / "kernel" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    assert cache_dir(tmp_path) != first                       # a helper changed: fresh cache


@pytest.mark.slow
def test_cache_folder_survives_numba_rereading_its_environment():
    """Numba re-reads its configuration when a NUMBA_* variable changes after import; the
    project's functions must stay cached in the hashed folder, never fall back beside the
    sources (where a changed rule could run stale compiled code). Nothing process-wide says
    so: no NUMBA_CACHE_DIR in the environment, numba.config.CACHE_DIR untouched."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, os, numba, sim.kernel.compiler as j\n"
            "before = numba.config.CACHE_DIR\n"
            "import numpy as np, sim.kernel.rng as r, sim.kernel.referee\n"
            "os.environ['NUMBA_NUM_THREADS'] = '1'\n"
            "from numba.core.config import reload_config; reload_config()\n"
            "r.seed_game(np.zeros(4, np.uint64), np.uint64(3), 0)\n"
            "path = r.seed_game._cache._cache_path\n"
            "print(json.dumps({'ours': path.startswith(str(j.cache_dir())),\n"
            "                  'files': len(os.listdir(path)) > 0,\n"
            "                  'env': 'NUMBA_CACHE_DIR' in os.environ,\n"
            "                  'config': numba.config.CACHE_DIR == before}))")
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_NUM_THREADS", "NUMBA_CACHE_DIR", "SHITHEAD_NUMBA_PATCHES")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"ours": True, "files": True,
                                                        "env": False, "config": True}


@pytest.mark.slow
def test_importing_the_kernel_changes_nothing_process_wide():
    """Importing sim and every kernel module leaves the environment, Numba's
    configuration, the warnings filters, sys.modules (beyond the modules imported) and
    Numba's own functions as they were; the entry points' ``install()`` patches Numba."""
    import json
    import subprocess
    import sys

    code = ("import json, os, sys, warnings\n"
            "import numba\n"
            "from numba.core import caching\n"
            "from numba.experimental import function_type\n"
            "env, cfg = dict(os.environ), dict(vars(numba.config))\n"
            "filters, load = list(warnings.filters), caching.Cache.load_overload\n"
            "address = function_type._get_jit_address\n"
            "import sim, sim.kernel.referee, sim.kernel.position, sim.kernel.strategy\n"
            "import strategies; strategies.load()\n"
            "same = {'env': dict(os.environ) == env,\n"
            "        'config': {k: v for k, v in vars(numba.config).items()\n"
            "                   if k in cfg} == cfg,\n"
            "        'warnings': list(warnings.filters) == filters,\n"
            "        'blas': 'scipy.linalg.cython_blas' not in sys.modules\n"
            "                or 'scipy.linalg' in sys.modules,\n"   # Numba's own import
            "        'numba': caching.Cache.load_overload is load\n"
            "                 and function_type._get_jit_address is address}\n"
            "from sim.kernel.compiler import install; install()\n"
            "same['installed'] = caching.Cache.load_overload is not load\n"
            "print(json.dumps(same))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    import os
    patched = os.environ.get("SHITHEAD_NUMBA_PATCHES", "1") not in ("0", "none")
    assert got == {"env": True, "config": True, "warnings": True, "blas": True,
                   "numba": True, "installed": patched}


@pytest.mark.slow
def test_without_the_cache_patch_nothing_is_cached_beside_the_sources(tmp_path):
    """The ``cache`` patch's fallback (Numba's public caching): only into a NUMBA_CACHE_DIR
    the user set, else no disk cache at all; never Numba's default beside the sources,
    which gotcha 1 would make stale."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, numpy as np, sim.kernel.rng as r\n"
            "r.seed_game(np.zeros(4, np.uint64), np.uint64(3), 0)\n"
            "c = r.seed_game._cache\n"
            "print(json.dumps([type(c).__name__, getattr(c, '_cache_path', None)]))")
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",
                                                              "SHITHEAD_CACHE_DIR")}
    base["SHITHEAD_NUMBA_PATCHES"] = "lazy,borrow,load"
    got = {}
    for mode, extra in (("none", {}), ("user", {"NUMBA_CACHE_DIR": str(tmp_path)})):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**base, **extra}, check=True).stdout
        got[mode] = json.loads(out.strip().splitlines()[-1])
    assert got["none"] == ["NullCache", None]
    assert got["user"][0] == "FunctionCache" and got["user"][1].startswith(str(tmp_path))


def test_a_function_without_a_source_file_compiles_uncached():
    """A strategy typed into a notebook or exec'd has no file: the hashed folder's locator
    declines it and Numba's own locators (IPython's cache for a notebook) take over; with none,
    it runs uncached instead of failing at decoration."""
    namespace: dict = {}
    exec("from sim.kernel.compiler import jit\n"
         "@jit\n"
         "def plus_one(x):\n"
         "    return x + 1\n", namespace)
    f = namespace["plus_one"]
    assert f(2) == 3
    assert type(f._cache).__name__ == "NullCache"


@pytest.mark.slow
def test_bounds_checked_code_has_a_cache_folder_of_its_own():
    """NUMBA_BOUNDSCHECK=1 compiles other code: it never shares the
    normal build's folder."""
    import os
    import subprocess
    import sys

    code = "from sim.kernel.compiler import cache_dir; print(cache_dir().name)"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_BOUNDSCHECK"}
    names = [subprocess.run([sys.executable, "-c", code], env={**env, **extra},
                            capture_output=True, text=True, check=True).stdout.strip()
             for extra in ({}, {"NUMBA_BOUNDSCHECK": "1"})]
    assert names[0] and names[1] and names[0] != names[1]
