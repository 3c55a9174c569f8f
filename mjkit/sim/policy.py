"""Policies of the simulated players, and how to plug in your own.

Built in (by name): ``"efficiency"`` (value-blind tile efficiency),
``"value"`` (aims at a hand worth the player's bar; seed 000's 6看 7停 8上),
``"break"`` (破拉: against a dealer on a streak, the quickest legal
hand, free claims, and discards the dealer cannot claim kept for last) and
``"strong"`` (the win-probability engine's fast mode at the player's own
bar, 连拉 counted: :func:`mjkit.winprob.win_chances` ``mode="fast"``; off a
void bar a meld only where the fast mode rates it higher, efficiency play at
a void bar) and
``"strong_break"`` (``"strong"``, and 破拉 against a dealer on a streak once
its own chances are small: of the tiles the dealer can least claim, the one
the fast mode rates best).  The kernel
code is in :mod:`mjkit._kernels.policy` and :mod:`mjkit._kernels.game`.

Your own policy is a function of one ``int64`` array, the player's view,
returning an ``int64``; :func:`user_policy` compiles it with numba (a
``cfunc``, so the game kernel itself stays compiled and cached).  The view
holds (offsets are the ``V_*`` constants here):

* ``view[V_ASK]``: ``ASK_DISCARD`` (return the kind to discard, 0..33, one
  you hold), ``ASK_PUNG``, ``ASK_CHOW`` or ``ASK_KONG`` (return 1 to make
  the meld, 0 not to), or with ``exchange=True`` ``ASK_EXCHANGE`` (起手换牌:
  return a kind you hold to swap one copy for a random wall tile, -1 to
  stop; asked up to three times, each time shown the hand without the tiles
  already picked).  The engine only asks about melds that are legal.
* ``view[V_TILE]``: the tile asked about (a chow: its lowest tile).
* ``view[V_SEAT]`` (0 is the dealer), ``view[V_LEVEL]`` (the dealer's
  连拉 level), ``view[V_BAR]`` (fans your hand itself needs),
  ``view[V_WALL_LEFT]``, ``view[V_N_MELDS]``, ``view[V_WILD]`` (the wild
  kind or -1), ``view[V_FLOWERS]``, ``view[V_DISCARDER]``.
* ``view[V_HAND:V_HAND + 34]``: your concealed tiles, counts per kind.
* ``view[V_SEEN:V_SEEN + 34]``: tiles everybody has seen (discards, melds).
* ``view[V_MELDS:V_MELDS + 8]``: your melds as (type, tile) pairs
  (1 chow, 2 pung, 3 kong, 4 concealed kong).

Wins are not asked: a player always declares a legal win (one that reaches
the bar), and never a P胡.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import cfunc, types

from .._kernels import policy as _P
from ..errors import HandError

__all__ = ["POLICIES", "UserPolicy", "user_policy", "SIGNATURE", "V_ASK", "V_TILE", "V_SEAT",
           "V_LEVEL", "V_BAR", "V_WALL_LEFT", "V_N_MELDS", "V_WILD", "V_FLOWERS",
           "V_DISCARDER", "V_HAND", "V_SEEN", "V_MELDS", "ASK_DISCARD", "ASK_PUNG", "ASK_CHOW",
           "ASK_KONG", "ASK_EXCHANGE"]

#: Built-in policies by name (``dealer_policy=`` / ``others_policy=``).
POLICIES = {"efficiency": _P.POLICY_EFFICIENCY, "value": _P.POLICY_VALUE,
            "break": _P.POLICY_BREAK, "strong": _P.POLICY_STRONG,
            "strong_break": _P.POLICY_STRONG_BREAK}

#: The type of a policy callback: ``int64(int64[::1])``.
SIGNATURE = types.int64(types.int64[::1])

V_ASK, V_TILE, V_SEAT, V_LEVEL, V_BAR = _P.V_ASK, _P.V_TILE, _P.V_SEAT, _P.V_LEVEL, _P.V_BAR
V_WALL_LEFT, V_N_MELDS, V_WILD, V_FLOWERS = _P.V_WALL_LEFT, _P.V_N_MELDS, _P.V_WILD, _P.V_FLOWERS
V_DISCARDER, V_HAND, V_SEEN, V_MELDS = _P.V_DISCARDER, _P.V_HAND, _P.V_SEEN, _P.V_MELDS
ASK_DISCARD, ASK_PUNG, ASK_CHOW, ASK_KONG = _P.ASK_DISCARD, _P.ASK_PUNG, _P.ASK_CHOW, _P.ASK_KONG
ASK_EXCHANGE = _P.ASK_EXCHANGE


@cfunc(SIGNATURE, cache=True)
def _no_hook(view):              # pragma: no cover - never called by the built-in policies
    return -1


#: functions already compiled (a cfunc takes about a second to build)
_COMPILED = {}


@dataclass(frozen=True)
class UserPolicy:
    """A compiled policy callback (see :func:`user_policy`)."""

    name: str
    hook: object

    def __str__(self):
        return self.name


def user_policy(fn, name=None):
    """Compile ``fn(view) -> int`` into a policy for ``dealer_policy=`` / ``others_policy=``.

    ``fn`` must be numba-compilable (nopython) for the signature
    ``int64(int64[::1])``; it may call other ``numba.njit`` functions.
    Can be used as a decorator.

    Raises
    ------
    HandError
        If numba cannot compile ``fn`` for that signature.
    """
    if isinstance(fn, UserPolicy):
        return fn
    if fn in _COMPILED and name is None:
        return _COMPILED[fn]
    if not callable(fn):
        raise HandError(f"a policy must be a name in {sorted(POLICIES)} or a function, "
                        f"got {fn!r}")
    try:
        hook = cfunc(SIGNATURE)(getattr(fn, "py_func", fn))
    except Exception as e:          # numba's typing errors are many classes
        raise HandError(f"policy {getattr(fn, '__name__', fn)!r} does not compile as "
                        f"int64(int64[::1]) with numba: {str(e).splitlines()[0]}") from None
    up = UserPolicy(name or getattr(fn, "__name__", "user"), hook)
    if name is None:
        _COMPILED[fn] = up
    return up


def resolve(policy):
    """(kernel code, callback) of a policy given by name, :class:`UserPolicy` or function."""
    if isinstance(policy, str):
        try:
            return POLICIES[policy], _no_hook
        except KeyError:
            raise HandError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}, "
                            "or a function compiled by mjkit.sim.user_policy") from None
    up = user_policy(policy)
    return _P.POLICY_USER, up.hook


def label(policy):
    """A policy's name for tables and saved results."""
    return policy if isinstance(policy, str) else str(user_policy(policy))
