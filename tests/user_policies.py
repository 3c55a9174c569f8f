"""Small user policies for the tests (plain functions; mjkit.sim.user_policy compiles them)."""

from mjkit.sim.policy import ASK_DISCARD, ASK_EXCHANGE, V_ASK, V_HAND


def highest(view):
    """Discard the highest kind held; accept every meld offered."""
    for k in range(33, -1, -1):
        if view[V_HAND + k] > 0:
            return k
    return -1


def never_claim_lowest(view):
    """Discard the lowest kind held; never meld."""
    if view[V_ASK] != ASK_DISCARD:
        return 0
    for k in range(34):
        if view[V_HAND + k] > 0:
            return k
    return -1


def bad(view):
    """Discard a flower: never held, so the engine must refuse it."""
    return 40


def keep_all_highest(view):
    """Exchange nothing at 起手换牌; otherwise as :func:`highest`."""
    if view[V_ASK] == ASK_EXCHANGE:
        return -1
    for k in range(33, -1, -1):
        if view[V_HAND + k] > 0:
            return k
    return -1


def swap_lowest_highest(view):
    """Exchange the lowest kind held (up to three times); otherwise as :func:`highest`."""
    if view[V_ASK] == ASK_EXCHANGE:
        for k in range(34):
            if view[V_HAND + k] > 0:
                return k
        return -1
    for k in range(33, -1, -1):
        if view[V_HAND + k] > 0:
            return k
    return -1
