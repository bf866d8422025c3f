"""rlx.testing: TVM's testing helpers that scripts use."""
import numpy as np


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """numpy's assert_allclose on NDArrays or arrays (TVM's default tolerances)."""
    actual = actual.numpy() if hasattr(actual, "numpy") and not isinstance(actual, np.ndarray) else actual
    desired = desired.numpy() if hasattr(desired, "numpy") and not isinstance(desired, np.ndarray) else desired
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)
