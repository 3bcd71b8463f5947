"""The shared Dask clusters of tests/cluster_support.py are closed after a test of this folder
when the next test does not play on them."""

from cluster_support import pytest_runtest_teardown

__all__ = ["pytest_runtest_teardown"]
