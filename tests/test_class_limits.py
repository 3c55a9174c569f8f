"""The classroom server's per-student limits, without starting kernels: the kernel manager's
bookkeeping (who owns which kernel, replacing, refusing, culling, the memory watch), the
message bucket, the access log's redaction, seats and page addresses (issue 35 §1)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

pytest.importorskip("voila")

from mjkit import HandError  # noqa: E402
from mjkit.app import _voila as V  # noqa: E402
from mjkit.app import server  # noqa: E402


class _FakeKernel:
    def __init__(self):
        self.execution_state = "idle"
        self.last_activity = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
        self.kernel_spec = type("Spec", (), {"metadata": {}})()
        self.kernel_name = "python3"


class _Manager(V.ClassroomKernelManager):
    """The real manager with kernels that are only entries: starting and stopping is
    bookkeeping (what the limits are about), and each stop is recorded."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.shut = []
        self.rss = {}

    async def _start(self, owner):
        seat = self.take_seat(owner)
        assert seat is not None
        kid = f"k{len(self._started) + len(self.shut)}-{owner.student}"
        seat.release()
        self._owners[kid] = owner
        self._started[kid] = self._last_input[kid] = len(self._started) + len(self.shut)
        self._kernels[kid] = _FakeKernel()
        return kid

    async def shutdown_kernel(self, kernel_id, now=False, restart=False):
        self.shut.append(kernel_id)
        self._kernels.pop(kernel_id, None)

    def kernel_rss(self, kernel_id):
        return self.rss.get(kernel_id)


def _run(coro):
    return asyncio.run(coro)


def test_a_new_load_replaces_the_students_kernel_and_an_address_is_bounded():
    async def go():
        m = _Manager(max_kernels=8, kernels_per_student=1, kernels_per_address=2)
        ann, ben, cai = (V.Owner(s, "10.0.0.5") for s in ("ann", "ben", "cai"))
        first = await m._start(ann)
        assert await m.make_room(ann)              # Ann again: her old kernel goes
        assert m.shut == [first] and m.stopped[first] == "replaced"
        await m._start(ann)
        assert await m.make_room(ben)
        await m._start(ben)
        assert not await m.make_room(cai)          # the address has its two
        assert await m.make_room(V.Owner("dan", "10.0.0.6"))   # another device may
        assert await m.make_room(ann)              # Ann reloading is still served
        # ten loads by one cookie never hold more than one kernel
        for _ in range(10):
            assert await m.make_room(ann)
            await m._start(ann)
        assert sum(1 for o in m._owners.values() if o.student == "ann") == 1
        # a loopback visitor (no cookie) has no per-student limit
        assert await m.make_room(V.Owner(None, "127.0.0.1"))
    _run(go())


def test_loads_still_starting_count_against_the_limits():
    async def go():
        m = _Manager(max_kernels=8, kernels_per_student=1, kernels_per_address=3)
        ann = V.Owner("ann", "10.0.0.5")
        seat = m.take_seat(ann)                    # a load of Ann's, its kernel not started
        assert not await m.make_room(ann)
        seat.release()
        assert await m.make_room(ann)
    _run(go())


def test_a_kernel_without_input_is_culled_even_when_connected():
    async def go():
        m = _Manager(max_kernels=8, input_idle_timeout=10, cull_idle_timeout=600)
        kid = await m._start(V.Owner("ann", "10.0.0.5"))
        m._kernel_connections[kid] = 1             # a browser holds its websocket
        m._last_input[kid] = V.time.monotonic() - 5
        await m.cull_kernel_if_idle(kid)
        assert kid in m._kernels                   # 5 s quiet: kept
        m._last_input[kid] = V.time.monotonic() - 60
        m._kernels[kid].execution_state = "busy"
        await m.cull_kernel_if_idle(kid)
        assert kid in m._kernels                   # busy (its page being rendered): kept
        m._kernels[kid].execution_state = "idle"
        await m.cull_kernel_if_idle(kid)
        assert kid not in m._kernels and m.stopped[kid] == "idle"
    _run(go())


def test_the_memory_watch_stops_a_kernel_over_its_hard_limit():
    async def go():
        m = _Manager(max_kernels=8, kernel_memory=400)
        small = await m._start(V.Owner("ann", "10.0.0.5"))
        big = await m._start(V.Owner("ben", "10.0.0.5"))
        m.rss = {small: 300 * 2**20, big: int(400 * server.HARD_MEMORY_FACTOR + 1) * 2**20}
        await m._check_memory()
        assert m.shut == [big] and m.stopped[big] == "memory" and small in m._kernels
    _run(go())


def test_a_browser_that_floods_is_throttled():
    m = V.ClassroomKernelManager()
    kept = sum(m.note_input("k") for _ in range(5 * server.MESSAGE_BURST))
    assert server.MESSAGE_BURST <= kept < server.MESSAGE_BURST + 20


@pytest.mark.parametrize("uri,secret", [
    ("/teacher?token=Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"),
    ("/join?code=ABCD-EFGH&name=Eve&seat=3", "ABCD-EFGH"),
    ("/?name=Eve&session=abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuv"),
    ("/teacher?TOKEN=Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"),
])
def test_the_access_log_never_holds_a_secret(uri, secret):
    shown = V.redacted_uri(uri)
    assert secret not in shown and shown.startswith(uri.split("?")[0] + "?")


@pytest.mark.parametrize("text", ["²", "①", "٣", "１", "0", "1000", "-1", "1e3", " 7", "abcd"])
def test_a_seat_is_ascii_digits(text):
    with pytest.raises(HandError, match="seat"):
        server.seat_number(text)


def test_a_seat_number():
    assert server.seat_number("") is None and server.seat_number("007") == 7


@pytest.mark.parametrize("query", [
    "name=A&seat=%C2%B2&session=abcdefghijklmnopqrstuv",
    "&".join(f"f{i}=1" for i in range(11)),
    "name=A&session=abcdefghijklmnopqrstuv&x=1",
    "name=A&name=B&session=abcdefghijklmnopqrstuv",
    "name=%FF&session=abcdefghijklmnopqrstuv",
    "name=A&session=short",
    "name=A%20%20B&session=abcdefghijklmnopqrstuv",
    "seat=3",
])
def test_a_page_address_the_join_page_does_not_make_is_refused(query):
    with pytest.raises(HandError):
        server.page_query(query)
    assert server.student_from_query(query) is None


def test_a_page_address_the_join_page_makes():
    assert server.page_query("") is None
    assert server.page_query("name=%E5%B0%8F%E6%98%8E&seat=7&session=abcdefghijklmnopqrstuv") \
        == {"name": "小明", "seat": 7, "session": "abcdefghijklmnopqrstuv"}


def test_class_cookies_name_one_student_and_cannot_be_forged():
    from types import SimpleNamespace

    sec = server.ClassSecrets.new()
    opts = server.check_options(ip="0.0.0.0", create=False)
    cls = V._Class(opts, sec)

    def req(cookie):
        return SimpleNamespace(headers={"Cookie": cookie})

    good = cls.student_cookie("abcdefghijklmnop")
    assert cls.student_of(req("mjkit_class=" + good)) == "abcdefghijklmnop"
    assert cls.student_of(req("mjkit_class=" + good[:-1] + "0")) is None
    assert cls.student_of(req("mjkit_class=qrstuvwxyzabcdef." + good.split(".")[1])) is None
    assert cls.student_of(req("mjkit_teacher=" + cls.teacher_cookie)) == "teacher"
    assert cls.student_of(req("")) is None
    other = V._Class(opts, server.ClassSecrets.new())     # another run's cookie
    assert other.student_of(req("mjkit_class=" + good)) is None


def test_a_kernel_that_ended_is_cleared_and_its_page_told_why():
    """No restart (a fresh kernel would have no page): the watch clears an ended kernel,
    naming the memory guard's own exit status as a memory stop."""
    from types import SimpleNamespace

    from mjkit.app.kernel_guard import EXIT_STATUS

    async def go():
        m = _Manager(max_kernels=8)
        guarded = await m._start(V.Owner("ann", "10.0.0.5"))
        crashed = await m._start(V.Owner("ben", "10.0.0.5"))
        running = await m._start(V.Owner("cai", "10.0.0.6"))
        for kid, status in ((guarded, EXIT_STATUS), (crashed, -9), (running, None)):
            process = SimpleNamespace(poll=lambda s=status: s)
            m._kernels[kid].provisioner = SimpleNamespace(process=process, pid=None)
        await m._check_memory()
        assert m.stopped == {guarded: "memory", crashed: "ended"}
        assert running in m._kernels and guarded not in m._kernels
    _run(go())


def test_classroom_kernels_are_not_restarted():
    opts = server.check_options(create=False)
    assert V.voila_config(opts, "/tmp").KernelManager.autorestart is False
