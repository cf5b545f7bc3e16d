#!/usr/bin/env python3
"""Time a command: repeat it and report the best wall-clock time.

usage: timecmd.py [--out FILE] [--min-runs N] [--max-runs N] [--min-time S]
                  [--timeout S] -- CMD ARG...

The command's stdout goes to FILE (default /dev/null; the file is rewritten on
every run), stderr is passed through.  The command is run at least --min-runs
times and repeated until the summed wall time reaches --min-time seconds, but
never more than --max-runs times.  Any non-zero exit status is fatal (exit 1).  A run that takes longer
than --timeout seconds is killed and timecmd.py exits with status 124.

Prints one line:  best_seconds runs max_rss_kib user_plus_sys_seconds_of_best
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time


def run_once(cmd, out_path, timeout):
    killed = []

    def kill(pid):
        killed.append(True)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, start_new_session=True)
        timer = threading.Timer(timeout, kill, (proc.pid,)) if timeout > 0 else None
        if timer:
            timer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        t1 = time.perf_counter()
        if timer:
            timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if killed:
        print(f"timecmd.py: timeout: killed after {timeout:g} s: {' '.join(cmd)}", file=sys.stderr)
        sys.exit(124)
    if proc.returncode != 0:
        sys.exit(f"timecmd.py: command failed with status {proc.returncode}: {' '.join(cmd)}")
    return t1 - t0, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.devnull)
    ap.add_argument("--min-runs", type=int, default=1)
    ap.add_argument("--max-runs", type=int, default=10)
    ap.add_argument("--min-time", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=0.0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command given")
    best = None
    total = 0.0
    runs = 0
    rss = 0
    while runs < a.max_runs and (runs < a.min_runs or total < a.min_time):
        dt, r, cpu = run_once(cmd, a.out, a.timeout)
        runs += 1
        total += dt
        rss = max(rss, r)
        if best is None or dt < best[0]:
            best = (dt, cpu)
    print(f"{best[0]:.6f} {runs} {rss} {best[1]:.6f}")


if __name__ == "__main__":
    main()
