"""tools/lib/external.py reads likwid-bench, mbw and lat_mem_rd output into the probe's units
(outputs as those tools printed them on the development VM, trimmed)."""
from __future__ import annotations

import pytest

from tools.lib import external

LIKWID_COPY_1MB = """\
Cycle Clock:		2299921874
Time:			1.603689e+00 sec
Iterations:		131072
Size (Byte):		999936
Data volume (Byte):	131063611392
MByte/s:		81726.32
Cycles per update:	0.450268
"""

MBW_T1 = """\
AVG	Method: DUMB	Elapsed: 0.02417	MiB: 256.00000	Copy: 10590.036 MiB/s
"""

LAT_MEM_RD = """\
"stride=64
0.00049 1.688
0.01562 1.694
0.50000 7.284
4.00000 36.884
64.00000 147.810

"""


def test_likwid_counts_a_copy_once():
    assert external.likwid_gbps(LIKWID_COPY_1MB, copies=True) == pytest.approx(81726.32 / 2000)
    assert external.likwid_gbps(LIKWID_COPY_1MB, copies=False) == pytest.approx(81.72632)
    with pytest.raises(ValueError, match="one 'MByte/s:' line"):
        external.likwid_gbps("nothing", copies=False)


def test_mbw_mib_per_second_to_gb():
    method, gbps = external.mbw_gbps(MBW_T1)
    assert method == "DUMB" and gbps == pytest.approx(10590.036 * 1048576 / 1e9)
    with pytest.raises(ValueError):
        external.mbw_gbps(MBW_T1 + MBW_T1)


def test_lat_mem_rd_sizes_in_bytes():
    pts = external.lat_mem_rd_points(LAT_MEM_RD)
    assert pts[512] == 1.688 and pts[16384] == 1.694 and pts[4 << 20] == 36.884
    assert external.nearest(pts, 3 << 20) == (4 << 20, 36.884)
    assert external.difference_pct(110.0, 100.0) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        external.lat_mem_rd_points("stride=64\n")
