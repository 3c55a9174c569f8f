"""``benchmarks/perf_map.py`` names numba's compiled kernels for ``perf``."""

import sys
from pathlib import Path

import mjkit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import perf_map  # noqa: E402


def test_the_map_names_the_scorer_in_address_order(tmp_path):
    mjkit.score("123m456p789s1235z 5z", "gb")          # the scorer is loaded now
    path, n = perf_map.write_perf_map(str(tmp_path / "perf-1.map"))
    rows = [line.split(" ", 2) for line in Path(path).read_text().splitlines()]
    assert n == len(rows) > 0
    starts = [int(a, 16) for a, _, _ in rows]
    assert starts == sorted(starts)
    # no entry runs into the next one
    assert all(a + int(s, 16) <= b for (a, s), b in zip(((int(r[0], 16), r[1]) for r in rows),
                                                        starts[1:]))
    assert any("mjkit" in name and "evaluate" in name for _, _, name in rows)
