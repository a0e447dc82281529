"""How fast is Ctrl-C answered? Start a sim command, send it SIGINT after WAIT seconds and
print the seconds from the signal to its exit, its exit code and the end of its output.

    python benchmarks/ctrl_c.py WAIT run --games 1e9
    python benchmarks/ctrl_c.py 50 compare lowest counting montecarlo --games 200k --out DIR
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    wait, args = float(sys.argv[1]), sys.argv[2:]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(wait)
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=600)
    print(f"exit {p.returncode}, {time.perf_counter() - t0:.2f} s from SIGINT to exit")
    print(out[:600])
    print(err[-400:])


if __name__ == "__main__":
    main()
