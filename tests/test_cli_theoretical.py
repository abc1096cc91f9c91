"""``--theoretical`` on every command whose roofs come from ``--ceilings``/peaks: plot, check, explain.

Sample 5, pmgpu (``roofline_widget/data/pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt``):
one thread of an AMD EPYC 7702 (Zen2), "CPU clock: 2.00 GHz".  Its theoretical DP roof is AVX2
FMA: 2 FMA pipes x 4 doubles x 2 FLOP = 16 FLOP/cycle x 2.00 GHz x 1 core = 32 GFLOP/s.
<function_a> (lines 139-140, MEM_DP): 2134.1472 MFLOP/s, 8554.1612 MBytes/s, so
2.1341472 / 8.5541612 = 0.24949 FLOP/byte; the largest bandwidth is <function_d>'s 28.5809575 GB/s.
"""

from __future__ import annotations

import pytest
from test_cli import PMGPU, run, run_json

THEORETICAL = "Theoretical DP AVX2 FMA (1 core at 2 GHz)"


@pytest.mark.parametrize("command", ["plot", "check", "explain"])
def test_every_command_with_ceilings_has_the_option(tmp_path, command):
    done = run(command, "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "--theoretical" in done.stdout


def test_explain_judges_against_the_theoretical_roof(tmp_path):
    # with a bandwidth of 1000 GB/s the ridge is 32 / 1000 = 0.032 FLOP/byte: <function_a>
    # (0.2495) is compute bound at 2.1341472 / 32 = 6.67 % of the theoretical roof
    code, result = run_json("explain", PMGPU, "--theoretical", "--peak-bandwidth", "1000",
                            "--region", "<function_a>", cwd=tmp_path)
    assert code == 0
    [row] = result["guidance"]
    assert (row["bound"], row["roof"], row["roof_empirical"]) == ("compute", THEORETICAL, False)
    assert row["roof_percent"] == pytest.approx(100 * 2.1341472 / 32)
    assert result["ceiling_notes"] == []
    # no bandwidth given: the empirical one, 28.5809575 GB/s; the ridge 32 / 28.58 = 1.12, so
    # <function_a> is memory bound at 2.1341472 / (28.5809575 x 0.24949) = 29.9 %
    done = run("explain", PMGPU, "--theoretical", "--region", "<function_a>", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "bound: memory, 30 % of the Empirical bandwidth roof (empirical)" in done.stdout


def test_check_advises_against_the_theoretical_roof(tmp_path):
    code, result = run_json("check", PMGPU, "--theoretical", "--peak-bandwidth", "1000",
                            cwd=tmp_path)
    assert code == 0  # one thread: no STAT sums, and no sanity finding
    rows = {row["region"]: row for row in result["guidance"]}
    assert rows["<function_a>"]["roof"] == THEORETICAL
    assert rows["<function_a>"]["roof_percent"] == pytest.approx(100 * 2.1341472 / 32)
    # without --theoretical a bandwidth alone is refused, as before
    done = run("check", PMGPU, "--peak-bandwidth", "1000", cwd=tmp_path)
    assert done.returncode == 2
    assert "needs both --peak-flops and --peak-bandwidth" in done.stderr
