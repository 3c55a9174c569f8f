"""Servers for the tests: a free port, and the classroom app serving a class on the LAN.

One home for what the classroom, browser and load tests all need: start
``server.serve`` on every interface in its own process, wait until ``/join``
answers, read the class code and the teacher's link from what it printed, and
stop it (and every kernel it started) afterwards, even when the test failed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on at ``host`` now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def lan_address() -> str | None:
    """One of this machine's addresses other than loopback, or None."""
    from mjkit.app import server

    addrs = sorted(server._interface_addresses() - {"127.0.0.1"})
    return addrs[0] if addrs else None


def kernel_processes(pid: int) -> list:
    """The kernels (ipykernel processes) below the process ``pid``."""
    import psutil

    try:
        procs = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    out = []
    for p in procs:
        try:
            if "ipykernel_launcher" in " ".join(p.cmdline()):
                out.append(p)
        except psutil.Error:
            pass
    # a subprocess a kernel starts carries the kernel's command line between its fork and
    # its exec: a kernel's child is no kernel
    pids = {p.pid for p in out}
    kept = []
    for p in out:
        try:
            if p.ppid() not in pids:
                kept.append(p)
        except psutil.Error:
            pass
    return kept


def _stop(proc, timeout):
    import psutil

    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        tree = []
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    _, alive = psutil.wait_procs(tree, timeout=10)
    for p in alive:                          # never leak a kernel, even on failure
        try:
            p.kill()
        except psutil.Error:
            pass
    return alive


@contextlib.contextmanager
def lan_class(base: Path, *, seed: int, questions: int, difficulty: str = "easy",
              lang: str = "zh", max_kernels: int | None = None, stop_timeout: float = 60,
              **options):
    """Serve a class on ``0.0.0.0`` from ``base``; yield what a test needs to reach it.

    The dict has ``ip``, ``port``, ``url`` (the students' address, ending in
    ``/``), ``proc``, ``log`` (the path of what the server printed), ``text``
    (what it printed once up), ``results`` (the results folder), ``code`` (the
    class code) and ``teacher`` (the teacher's full link) and ``token``.
    ``options`` are further whole-number options of ``server.check_options``
    (``kernels_per_address=2``, ``input_idle_timeout=10``, ...).
    Skips when voila is missing (fails on CI) or the machine has no LAN address.
    """
    if importlib.util.find_spec("voila") is None:
        if os.environ.get("CI"):
            pytest.fail("the classroom tests need voila (pip install -e '.[test]')")
        pytest.skip("needs voila")
    ip = lan_address()
    if ip is None:
        pytest.skip("this machine has no address but loopback")
    port = free_port("0.0.0.0")
    log = base / "server-log.txt"
    results = base / "results"
    extra = "" if max_kernels is None else f", max_kernels={int(max_kernels)}"
    # further options of server.check_options (numbers only: they go into the code below)
    extra += "".join(f", {k}={int(v)}" for k, v in sorted(options.items()))
    code = ("import sys; from mjkit.app import server; "
            f"o = server.check_options(port={port}, seed={int(seed)}, questions={int(questions)}, "
            f"difficulty={difficulty!r}, lang={lang!r}, results={str(results)!r}, "
            f"ip='0.0.0.0'{extra}); sys.exit(server.serve(o))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=fh,
                                stderr=subprocess.STDOUT, cwd=base, env=env)
    url = f"http://{ip}:{port}/"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(url + "join", timeout=5).close()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail("the server did not start:\n" + log.read_text(errors="replace"))
                time.sleep(0.5)
        text = log.read_text(errors="replace")
        teacher = re.search(r"(http://\S+/teacher\?token=(\S+))", text)
        yield {"ip": ip, "port": port, "url": url, "proc": proc, "log": log, "text": text,
               "results": results, "code": re.search(r"Class code:\s+(\S+)", text).group(1),
               "teacher": teacher.group(1), "token": teacher.group(2)}
    finally:
        _stop(proc, stop_timeout)
