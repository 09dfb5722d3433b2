"""HTest prints like R's print.htest; R number formatting helpers."""

import calstats
from calstats.evaluation.htest import HTest
from calstats.numerics.rformat import format_named_vector, format_pval, format_real


def test_print_htest_layout():
    t = HTest({"G": 0.97803487}, 0.29511, "Kolmogorov-Smirnov calibration test (cumulative differences)",
              "miscalibrated", parameter={"n": 5}, estimate={"max_abs_cumdiff": 0.4242640687119285,
                                                             "sigma": 0.4330127018922193})
    assert str(t) + "\n" == (
        "\n\tKolmogorov-Smirnov calibration test (cumulative differences)\n\n"
        "data:  p and y\n"
        "G = 0.97803, n = 5, p-value = 0.2951\n"
        "alternative hypothesis: miscalibrated\n"
        "sample estimates:\n"
        "max_abs_cumdiff           sigma \n"
        "      0.4242641       0.4330127 \n\n"
    )


def test_null_value_alternative_and_tiny_p():
    t = HTest({"SKCE": 0.0123}, 1e-20, "Kernel calibration test", "greater", null_value={"SKCE": 0.0},
              r_class=("cal_test", "htest"))
    text = str(t)
    assert "SKCE = 0.0123, p-value < 2.2e-16" in text
    assert "alternative hypothesis: true SKCE is greater than 0" in text
    assert t.inherits("htest") and t["p.value"] == 1e-20 and t.pvalue == 1e-20
    stat, p = t
    assert (stat, p) == (0.0123, 1e-20)
    assert t.as_frame().loc[0, "SKCE"] == 0.0123


def test_r_format_helpers():
    assert format_real([0.97803487], 5) == ["0.97803"]
    assert format_real([1e-10], 5) == ["1e-10"]
    assert format_real([0.2, 0.18333333333], 7) == ["0.2000000", "0.1833333"]
    assert format_pval(1e-20) == "< 2.2e-16" and format_pval(0.0123456) == "0.01235"
    assert format_named_vector({"a": 1.5}) == "  a \n1.5 "
    with calstats.option_context(width=30):
        assert "\tKolmogorov" in str(HTest({"Z": 1.0}, 0.5, "Kolmogorov test", "two.sided"))
