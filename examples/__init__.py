"""Example business code used by the README, the notebooks, the demo and the tests."""
