"""A small counter-based random generator for the simulation kernels.

Every simulated hand gets its own stream, derived from (seed, level, hand
number) alone, so results never depend on the number of threads, on how the
hands are cut into chunks or on the backend that runs them.  The generator
is splitmix64 (Steele, Lea and Flood, 2014): one 64-bit state word per
stream, advanced by a constant and scrambled on output.  It is not for
cryptography; its statistical quality is ample for shuffling walls.
"""

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_seed(seed, level, index):
    """The starting state of stream (``seed``, ``level``, ``index``)."""
    z = _mix(np.uint64(seed) + _GAMMA)
    z = _mix(z ^ (np.uint64(level) + _GAMMA * np.uint64(2)))
    return _mix(z ^ (np.uint64(index) + _GAMMA * np.uint64(3)))


@njit(cache=True, inline="always")
def next_u64(state):
    """Advance ``state`` (uint64 array of length 1) and return 64 random bits."""
    state[0] += _GAMMA
    return _mix(state[0])


@njit(cache=True, inline="always")
def below(state, n):
    """A random integer in ``[0, n)`` (multiply-shift on the top 32 bits; bias < n / 2**32)."""
    x = next_u64(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))
