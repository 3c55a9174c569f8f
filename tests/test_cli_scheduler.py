"""``mjkit simulate --scheduler``: a bad address is exit 2 naming the option (issue 35).

``--scheduler not-an-address`` ended in a traceback from ``distributed`` (exit 1).  The
address's form is now checked when the command line is parsed, before Dask is imported or
a kernel compiled, and whatever Dask's ``Client`` still raises (no scheduler there, TLS
without certificates, an unusable transport) is reported as bad input too.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys

import pytest

from mjkit import cli
from mjkit.errors import HandError

_HAS_DASK = importlib.util.find_spec("distributed") is not None

#: Forms Dask cannot use: no port, no host, a port out of range, an unknown or in-process
#: scheme, an IPv6 address without brackets, spaces, nothing at all.
BAD_FORMS = ["not-an-address", "tcp://", ":::", "tcp://127.0.0.1:99999", "tcp://127.0.0.1:0",
             "tcp://127.0.0.1:-1", "tcp://127.0.0.1:http", "tcp://:8786", "tcp://[::1",
             "tcp://[not-ip6]:8786", "tcp://::1:8786", "foo://127.0.0.1:8786",
             "inproc://127.0.0.1/42/1", "tcp://local host:8786", "tcp://127.0.0.1:8786\n",
             "tcp://tcp://127.0.0.1:8786", "", "tcp://127.0.0.1:٨٧٨٦"]

GOOD_FORMS = ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "localhost:8786",
              "tls://scheduler.example.org:8786", "tcp://[::1]:8786", "ws://node-3.lan:80",
              "wss://10.0.0.2:443", "ucx://10.0.0.2:13337", "tcp://my_host:65535"]


def _simulate(*options, env=None):
    """``python -m mjkit simulate`` in a process of its own: (status, stderr)."""
    out = subprocess.run([sys.executable, "-m", "mjkit", "simulate", "--hands", "10",
                          "--no-progress", "--no-plot", *options],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, MJKIT_QUIET="1", **(env or {})))
    return out.returncode, out.stderr


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_not_an_address_is_bad_input_before_any_kernel(tmp_path):
    """The issue's command: exit 2, the option named, no traceback, nothing compiled."""
    cache = tmp_path / "numba"
    status, err = _simulate("--scheduler", "not-an-address",
                            env={"NUMBA_CACHE_DIR": str(cache)})
    assert status == 2, err
    assert "--scheduler" in err and "not-an-address" in err and "port" in err, err
    assert "Traceback" not in err, err
    assert not cache.exists() or not any(cache.rglob("*.nb*")), "a kernel compiled first"


@pytest.mark.parametrize("address", BAD_FORMS)
def test_a_bad_address_form_is_bad_input(address, capsys):
    assert cli.main(["simulate", "--scheduler", address, "--hands", "10"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and "Dask scheduler address" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("address", GOOD_FORMS)
def test_a_dask_address_passes_the_check(address):
    assert cli._scheduler_arg(address) == address
    if _HAS_DASK:       # and Dask reads the same host and port from it
        from distributed.comm.addressing import parse_address, parse_host_port

        host, port = parse_host_port(parse_address(address)[1])
        assert port == int(address.rsplit(":", 1)[1]) and host in address


@pytest.mark.parametrize("address", BAD_FORMS)
def test_the_check_raises_hand_error(address):
    with pytest.raises(HandError, match="Dask scheduler address"):
        cli._scheduler_arg(address)


@pytest.mark.skipif(not _HAS_DASK, reason="needs dask.distributed")
@pytest.mark.parametrize("kind", ["nothing listens", "tls without certificates"])
def test_a_scheduler_dask_cannot_use_is_bad_input(kind):
    """Every error from Dask's Client (OSError after the timeout, TypeError, ...) is exit 2."""
    address = (f"tcp://127.0.0.1:{_closed_port()}" if kind == "nothing listens"
               else f"tls://127.0.0.1:{_closed_port()}")
    status, err = _simulate("--scheduler", address, "--timeout", "1")
    assert status == 2, err
    assert f"--scheduler {address!r}" in err and "Dask scheduler" in err, err
    assert "Traceback" not in err, err


def test_without_dask_a_good_address_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # as if not installed
    assert cli.main(["simulate", "--scheduler", "tcp://127.0.0.1:8786", "--hands", "10"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler needs Dask" in err and "dask[distributed]" in err, err
