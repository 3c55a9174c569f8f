"""The served kernel's guard (mjkit.app.kernel_guard), probed in real kernels.

Each test starts a real ipykernel with jupyter_client, runs a small widget set-up in it
from one session (the server's, as Voila's executor does) and then sends what a hostile
student's browser can send over the kernel websocket, from a second session, as
messages on the shell channel: a number box set to ``'abc'``, 8 MB of text to layouts,
thousands of comm opens, clicks on disabled buttons, code to execute.  It reads
everything the kernel publishes on iopub (all of which a page's websocket receives)
and the widgets' state afterwards.  The same probes run against a kernel without the
guard (the set-up without :func:`install`, as every served kernel was before), where
they must do the harm the guarded kernel refuses, so each test fails without the guard.

The kernels run without ``PYTEST_CURRENT_TEST`` in their environment: with it,
ipykernel does not forward the process's file descriptor 2 to the page, and a leak
through it would go unseen.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("ipykernel", reason="ipykernel is not installed (no python3 kernel)")
pytest.importorskip("jupyter_client", reason="jupyter_client is not installed")
psutil = pytest.importorskip("psutil", reason="psutil is not installed")

ROOT = Path(__file__).resolve().parent.parent
#: What no message a page receives may contain.
LEAKS = ("Traceback", "site-packages", str(ROOT), "/work/", 'File "', "ipykernel_")
MB8 = "x" * (8 * 2**20)
#: Give the heap's free memory back (glibc), so that RSS shows what the kernel keeps.
TRIM = "import ctypes; ctypes.CDLL(None).malloc_trim(0)"

# ------------------------------------------------------------------ a real kernel


class Kernel:
    """A real kernel, a server session (runs code) and a page session (a browser).

    Parameters
    ----------
    tmp : Path
        Where the kernel's standard error goes (``stderr.txt``).
    env : dict, optional
        Added to the kernel's environment.
    """

    def __init__(self, tmp, env=None):
        from jupyter_client import BlockingKernelClient, KernelManager

        environ = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
        environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT),
                                                              os.environ.get("PYTHONPATH")]))
        environ.update(env or {})
        self.stderr_path = Path(tmp) / f"stderr-{uuid.uuid4().hex[:8]}.txt"
        self._stderr = open(self.stderr_path, "wb")
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=environ, stderr=self._stderr, cwd=str(tmp))
        self.server = self.km.client()
        self.server.start_channels()
        self.server.wait_for_ready(timeout=120)
        # a browser: the same kernel, a session of its own
        self.page = BlockingKernelClient()
        self.page.load_connection_info(self.km.get_connection_info())
        self.page.start_channels()
        assert self.page.session.session != self.server.session.session
        self.seen = []        # every iopub message the page received

    @property
    def pid(self):
        return self.km.provisioner.process.pid

    def rss_mb(self):
        return psutil.Process(self.pid).memory_info().rss / 2**20

    def stderr(self):
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    # -- the server's session ------------------------------------------------------

    def run(self, code, timeout=120):
        """Run ``code`` as the server does; fail on an error."""
        msg_id = self.server.execute(code)
        reply = self._reply(self.server, msg_id, timeout)
        assert reply["content"]["status"] == "ok", reply["content"]
        self.sync()

    def value(self, expr, timeout=60):
        """``expr`` evaluated in the kernel (JSON-able), read through the server's session."""
        msg_id = self.server.execute("", silent=True,
                                     user_expressions={"v": f"__import__('json').dumps({expr})"})
        reply = self._reply(self.server, msg_id, timeout)
        out = reply["content"]["user_expressions"]["v"]
        assert out["status"] == "ok", out
        return json.loads(ast.literal_eval(out["data"]["text/plain"]))

    @staticmethod
    def _reply(client, msg_id, timeout):
        end = time.monotonic() + timeout
        while True:
            msg = client.get_shell_msg(timeout=max(0.1, end - time.monotonic()))
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg

    # -- the page's session --------------------------------------------------------

    def send(self, msg_type, content, *, buffers=None, metadata=None):
        """A message on the shell channel, as a browser's kernel connection sends it."""
        msg = self.page.session.msg(msg_type, content, metadata=metadata or {})
        if buffers:
            msg["buffers"] = buffers
        self.page.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def update(self, model_id, state):
        return self.send("comm_msg", {"comm_id": model_id,
                                      "data": {"method": "update", "state": state,
                                               "buffer_paths": []}})

    def custom(self, model_id, content):
        return self.send("comm_msg", {"comm_id": model_id,
                                      "data": {"method": "custom", "content": content}})

    def sync(self, timeout=120):
        """Wait until the kernel has handled everything sent so far and the page has every
        iopub message it caused; returns those messages."""
        msg_id = self.send("comm_info_request", {})
        self._reply(self.page, msg_id, timeout)
        got = []
        end = time.monotonic() + timeout
        while True:
            try:
                msg = self.page.get_iopub_msg(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the kernel never went idle") from None
            got.append(msg)
            if (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
                    and msg["parent_header"].get("msg_id") == msg_id):
                break
        self.seen += got
        return got

    def drain(self, seconds):
        """Every iopub message the page receives within ``seconds``."""
        got, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                got.append(self.page.get_iopub_msg(timeout=max(0.05, end - time.monotonic())))
            except queue.Empty:
                break
        self.seen += got
        return got

    def close(self):
        for c in (self.page, self.server):
            c.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=True)
        else:
            self.km.cleanup_resources()
        self._stderr.close()


def leaks(messages):
    """The messages a page must never get: an error, or text with a traceback or a path."""
    bad = []
    for m in messages:
        if m["msg_type"] == "error":
            bad.append(m)
        elif m["msg_type"] in ("stream", "display_data", "execute_result", "comm_msg"):
            text = json.dumps(m["content"])
            if m["msg_type"] == "stream" or any(s in text for s in LEAKS):
                bad.append(m)
    return bad


def updates(messages, model_id):
    """The states the kernel sent to the page for ``model_id``."""
    return [m["content"]["data"].get("state", {}) for m in messages
            if m["msg_type"] == "comm_msg" and m["content"].get("comm_id") == model_id
            and m["content"]["data"].get("method") in ("update", "echo_update")]


SETUP = """
import ipywidgets as W

total = W.IntText(value=0)
seed = W.BoundedIntText(value=0, min=0, max=10**9)
toggle = W.ToggleButton(value=False)
choice = W.ToggleButtons(options=["a", "b"], value=None)
picks = W.SelectMultiple(options=["x", "y", "z"])
tabs = W.Tab(children=[W.HTML("one"), W.HTML("two")])
clicks = []
button = W.Button(description="go")
button.on_click(lambda b: clicks.append("go"))
off = W.Button(description="off", disabled=True)
off.on_click(lambda b: clicks.append("off"))
html = W.HTML("kept")
def boom(change):
    raise RuntimeError("a handler failed in /work/main/secret.py")
check = W.Checkbox(value=False)
check.observe(boom, names="value")
cards = [W.HTML("card") for _ in range(10)]
page = W.VBox([total, seed, toggle, choice, picks, tabs, button, off, html, check, *cards])
ids = {name: w.model_id for name, w in [("total", total), ("seed", seed), ("toggle", toggle),
       ("choice", choice), ("picks", picks), ("tabs", tabs), ("button", button), ("off", off),
       ("html", html), ("check", check), ("html_layout", html.layout)]}
ids["cards"] = [c.layout.model_id for c in cards]
"""

GUARD = "\nfrom mjkit.app import kernel_guard\nguard = kernel_guard.install(lang='en')\n"


def _kernel(tmp, guarded, env=None):
    k = Kernel(tmp, env={"MJKIT_KERNEL_MEMORY_MB": "0", **(env or {})})
    try:
        k.run(SETUP + (GUARD if guarded else ""))
        k.ids = k.value("ids")
    except BaseException:
        k.close()
        raise
    return k


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    k = _kernel(tmp_path_factory.mktemp("guarded"), True)
    yield k
    k.close()


@pytest.fixture(scope="module")
def unguarded(tmp_path_factory):
    k = _kernel(tmp_path_factory.mktemp("unguarded"), False)
    yield k
    k.close()


# ------------------------------------------------------------------ the tests

def test_a_bad_value_sends_no_traceback_to_the_page(guarded, unguarded):
    probes = lambda k: (k.update(k.ids["total"], {"value": "abc"}),     # noqa: E731
                        k.update(k.ids["check"], {"value": True}),      # its handler raises
                        k.update(k.ids["choice"], {"index": "zero"}),
                        k.send("comm_msg", {"comm_id": k.ids["total"], "data": {}}),
                        k.send("comm_msg", {"comm_id": "no-such-comm",
                                            "data": {"method": "update", "state": {}}}))
    probes(unguarded)
    bad = leaks(unguarded.sync())
    assert any(m["msg_type"] == "error" for m in bad), "the probes hurt no unguarded kernel"
    probes(guarded)
    got = guarded.sync()
    assert not leaks(got), leaks(got)
    assert guarded.value("total.value") == 0
    assert guarded.value("check.value") is True        # applied; its handler's failure logged
    # the server's log has one line per dropped message, and no traceback
    log = guarded.stderr()
    assert "mjkit kernel guard: dropped comm_msg" in log and "RuntimeError" in log
    assert "Traceback" not in log


def test_only_the_controls_a_page_changes_obey_it(guarded, unguarded):
    def probes(k):
        i = k.ids
        k.update(i["html_layout"], {"width": "99px"})           # a layout
        k.update(i["html"], {"value": "<script>hostile</script>"})  # an HTML value
        k.update(i["total"], {"description": "hostile"})
        k.update(i["total"], {"layout": "IPY_MODEL_" + i["html_layout"]})
        k.update(i["seed"], {"max": 5})                         # a bound, not the value
        k.update(i["choice"], {"index": 7})                     # out of range
        k.update(i["picks"], {"index": [0, 0, 9]})
        k.update(i["tabs"], {"children": []})
        k.custom(i["total"], {"event": "click"})                # a click to a number box
        k.custom(i["off"], {"event": "click"})                  # a disabled button
        k.custom(i["button"], {"event": "run", "code": "x"})
        k.send("comm_msg", {"comm_id": i["toggle"],
                            "data": {"method": "update", "state": {"value": True},
                                     "buffer_paths": [["value"]]}}, buffers=[b"1"])
        k.send("comm_msg", {"comm_id": i["toggle"],
                            "data": {"method": "echo_update", "state": {"value": True}}})

    state = ("[html.layout.width, html.value, total.description, total.layout.model_id, "
             "seed.max, choice.index, list(picks.index), len(tabs.children), clicks, "
             "toggle.value]")
    before = unguarded.value(state)
    probes(unguarded)
    unguarded.sync()
    after = unguarded.value(state)
    # width, HTML, description, layout, max, -, -, children, a disabled button's click
    assert [a != b for a, b in zip(before, after)] == [True] * 5 + [False] * 2 + [True] * 2 \
        + [False], (before, after)
    assert after[8] == ["off"]
    before = guarded.value(state)
    probes(guarded)
    got = guarded.sync()
    assert not leaks(got)
    assert guarded.value(state) == before
    # what a real page sends still works
    i = guarded.ids
    guarded.update(i["toggle"], {"value": True})
    guarded.update(i["choice"], {"index": 1})
    guarded.custom(i["choice"], {"event": "click"})             # its view sends one too
    guarded.update(i["picks"], {"index": [0, 2]})
    guarded.update(i["tabs"], {"selected_index": 1})
    guarded.update(i["total"], {"value": 12})
    guarded.update(i["seed"], {"value": 10**12})                # clamped by the widget
    guarded.custom(i["button"], {"event": "click"})
    guarded.send("comm_msg", {"comm_id": i["html"], "data": {"method": "request_state"}})
    got = guarded.sync()
    assert guarded.value("[toggle.value, choice.value, list(picks.value), "
                         "tabs.selected_index, total.value, seed.value, clicks]") == [
        True, "b", ["x", "z"], 1, 12, 10**9, ["go"]]
    assert updates(got, i["html"])[-1]["value"] == "kept"     # its state, sent on request
    assert not leaks(got)


def test_a_page_may_not_run_code_or_read_the_kernel(guarded, unguarded, tmp_path):
    for k, name in ((unguarded, "unguarded"), (guarded, "guarded")):
        flag = tmp_path / f"{name}.txt"
        k.send("execute_request", {"code": f"open({str(flag)!r}, 'w').write('ran')",
                                   "silent": False, "store_history": False,
                                   "user_expressions": {}, "allow_stdin": False})
        k.send("inspect_request", {"code": "W.Widget", "cursor_pos": 8, "detail_level": 1})
        got = k.sync()
        k.drain(0.5)
        if k is unguarded:
            assert flag.exists(), "the unguarded kernel ran no code"
        else:
            assert not flag.exists()
            assert not leaks(got)
    # the kernel's info is still answered (a page's connection asks for it)
    msg_id = guarded.send("kernel_info_request", {})
    assert Kernel._reply(guarded.page, msg_id, 60)["content"]["status"] == "ok"


def test_client_comms_are_capped(guarded, unguarded):
    from mjkit.app.kernel_guard import CONTROL_TARGET, MAX_OPEN_COMMS

    count = "len(__import__('comm').get_comm_manager().comms)"
    controls = "@jupyter-widgets/controls"
    widget_state = {"state": {"_model_name": "HTMLModel", "_model_module": controls,
                              "_model_module_version": "2.0.0", "_view_name": "HTMLView",
                              "_view_module": controls, "_view_module_version": "2.0.0",
                              "value": "x" * 1000},
                    "buffer_paths": []}

    def opens(k, n):
        for j in range(n):
            target = CONTROL_TARGET if j % 2 else "jupyter.widget"
            k.send("comm_open", {"comm_id": uuid.uuid4().hex, "target_name": target,
                                 "data": {} if j % 2 else widget_state},
                   metadata={"version": "2.1.0" if target == "jupyter.widget" else "1.0.0"})
            if j % 250 == 249:
                k.sync()        # in steps: iopub drops what a slow reader has not taken
        k.sync()

    n0 = unguarded.value(count)
    opens(unguarded, 500)                   # ~3 kB each, kept for the kernel's life
    assert unguarded.value(count) - n0 >= 250, "the unguarded kernel refused the opens"

    # the widget manager's own control comm works: open, request the states, close
    ctl = uuid.uuid4().hex
    guarded.send("comm_open", {"comm_id": ctl, "target_name": CONTROL_TARGET, "data": {}},
                 metadata={"version": "1.0.0"})
    guarded.send("comm_msg", {"comm_id": ctl, "data": {"method": "request_states"}})
    got = guarded.sync()
    states = [m for m in got if m["msg_type"] == "comm_msg"
              and m["content"]["comm_id"] == ctl]
    assert states and states[0]["content"]["data"]["method"] == "update_states"
    assert guarded.ids["total"] in states[0]["content"]["data"]["states"]
    guarded.send("comm_close", {"comm_id": ctl, "data": {}})
    guarded.sync()

    n0, rss0 = guarded.value(count), _kept_mb(guarded)
    opens(guarded, 3000)                    # unguarded: ~10 MB
    assert guarded.value(count) - n0 <= MAX_OPEN_COMMS
    # what is left is the session's bounded log of message signatures (2**16 at most)
    assert _kept_mb(guarded) - rss0 < 5
    assert not leaks(guarded.seen)
    # the page may not close the kernel's own widgets
    guarded.send("comm_close", {"comm_id": guarded.ids["button"], "data": {}})
    guarded.custom(guarded.ids["button"], {"event": "click"})
    guarded.sync()
    assert guarded.value("clicks").count("go") >= 1 and guarded.value(
        "button.comm is not None")


def _kept_mb(k):
    """The kernel's resident size once the heap's free memory is given back (the least of
    three tries: what was dropped is freed, what was kept stays)."""
    out = float("inf")
    for _ in range(3):
        k.run(TRIM)
        out = min(out, k.rss_mb())
        time.sleep(0.2)
    return out


def test_big_messages_do_not_grow_the_kernel(guarded, unguarded):
    def flood(k):
        before = _kept_mb(k)
        for layout in k.ids["cards"]:                   # 8 MB of text to each of 10 layouts
            k.update(layout, {"width": MB8})
        k.sync()
        return _kept_mb(k) - before

    grown = flood(unguarded)
    assert grown > 60, f"the unguarded kernel kept only {grown:.0f} MB of 80 MB"
    # guarded, nothing is kept: what the allocator's thread arenas hold for a while
    # (up to ~40 MB, seen) is not added to by more floods
    grown = sum(flood(guarded) for _ in range(3))
    assert grown < 50, f"{grown:.0f} MB kept of 240 MB sent"
    assert guarded.value("[c.layout.width for c in cards]") == [None] * 10


# ------------------------------------------------------------------ memory


def test_over_its_memory_limit_the_page_is_told_and_the_kernel_ends(tmp_path):
    k = Kernel(tmp_path)
    try:
        k.run(SETUP + """
import os, psutil
from mjkit.app import kernel_guard
os.environ[kernel_guard.MEMORY_ENV] = str(int(psutil.Process().memory_info().rss / 2**20) + 30)
html.observe(lambda ch: None)
button.on_click(lambda b: setattr(html, "value", "clicked"))
guard = kernel_guard.install(lang="en", exit_delay=3)
guard.page = page
ids["banner"], ids["page_layout"] = guard.banner.model_id, page.layout.model_id
""")
        ids = k.value("ids")
        limit = k.value("guard.memory_mb")
        assert limit > 60
        k.custom(ids["button"], {"event": "click"})             # obeyed while under the limit
        assert updates(k.sync(), ids["html"])[-1]["value"] == "clicked"
        k.run("html.value = 'kept'")
        k.server.execute("hog = b'x' * (60 * 2**20)")
        text = "This page used too much memory and was stopped"
        banner, end = [], time.monotonic() + 30
        while not banner and time.monotonic() < end:
            banner = [s for s in updates(k.drain(0.5), ids["banner"])
                      if text in s.get("value", "")]
        assert banner, "no banner reached the page"
        # and the rest of the page is hidden: the banner is what the student sees
        assert {"display": "none"} in updates(k.seen, ids["page_layout"])
        # stopped: a click is no longer obeyed, and the process ends
        k.custom(ids["button"], {"event": "click"})
        got = k.drain(1.0)
        assert not any(s.get("value") == "clicked" for s in updates(got, ids["html"]))
        end = time.monotonic() + 30
        while k.km.is_alive() and time.monotonic() < end:
            time.sleep(0.2)
        assert not k.km.is_alive(), "the kernel did not end"
        assert f"above its limit of {limit} MB" in k.stderr()
        assert not leaks(k.seen)
    finally:
        k.close()


def test_the_memory_limit_comes_from_the_server():
    from mjkit import HandError
    from mjkit.app.kernel_guard import DEFAULT_MEMORY_MB, MEMORY_ENV, memory_limit

    assert memory_limit({}) == DEFAULT_MEMORY_MB == memory_limit({MEMORY_ENV: " "})
    assert memory_limit({MEMORY_ENV: "250"}) == 250 and memory_limit({MEMORY_ENV: "0"}) == 0
    for bad in ("abc", "-5", "1e9", "9" * 30):
        with pytest.raises(HandError, match=MEMORY_ENV):
            memory_limit({MEMORY_ENV: bad})
