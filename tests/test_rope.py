import warnings

import numpy as np
import pytest

from bayes_hier.rope import Rope, RopeScaleWarning


def test_half_width_means_symmetric_interval():
    rope = Rope.parse(0.01)
    assert (rope.low, rope.high) == (-0.01, 0.01)
    assert rope.is_symmetric and not rope.is_empty and rope.width == pytest.approx(0.02)


def test_pair_gives_asymmetric_rope_and_zero_is_empty():
    assert Rope.parse((-0.01, 0.02)) == Rope(-0.01, 0.02)
    assert Rope.parse(0).is_empty


def test_numpy_scalars_and_zero_dimensional_arrays_are_numbers():
    assert Rope.parse(np.array(0.01)) == Rope.parse(np.float64(0.01)) == Rope(-0.01, 0.01)
    assert Rope.parse(np.array([-1, 2])) == Rope.parse((np.int64(-1), 2)) == Rope(-1.0, 2.0)


@pytest.mark.parametrize(
    ("rope", "message"),
    [
        (-0.01, "half-width must be >= 0"),
        ((0.02, -0.01), "low > high"),
        ((0.01, 0.02), "must contain 0"),
        (np.nan, "finite"),
        ("wide", "must be a number"),
        ("0.01", "must be a number"),  # text is not read as a number
        (True, "must be a number"),  # nor a flag as 1
        ((-0.01, "0.01"), "must be a number"),
        ((1, 2, 3), "pair"),
    ],
)
def test_bad_ropes_are_rejected_with_the_fix(rope, message):
    with pytest.raises(ValueError, match=message):
        Rope.parse(rope)


def test_fraction_rope_on_percent_scores_warns():
    with pytest.warns(RopeScaleWarning, match="percentage points"):
        Rope.parse(0.01).check_scale(np.array([75.0, 93.2]))


def test_percent_rope_on_fraction_scores_warns():
    with pytest.warns(RopeScaleWarning, match="as a fraction"):
        Rope.parse(1.0).check_scale(np.array([0.75, 0.93]))


def test_matching_units_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Rope.parse(0.01).check_scale(np.array([0.75, 0.93]))
        Rope.parse(1.0).check_scale(np.array([75.0, 93.2]))


def test_negated_and_scaled():
    rope = Rope(-0.01, 0.03)
    assert rope.negated() == Rope(-0.03, 0.01)
    scaled = rope.scaled(0.01)
    assert (scaled.low, scaled.high) == (pytest.approx(-1.0), pytest.approx(3.0))
