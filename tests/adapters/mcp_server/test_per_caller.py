"""Each served call's options name its own caller and peer, though each combination is made once."""

from __future__ import annotations

from adapters.mcp_server._per_caller import PerCallerOptions
from toolkit.calls.options import CallOptions


def test_each_caller_and_peer_gets_options_naming_them() -> None:
    made, base = PerCallerOptions(), CallOptions(timeout=5.0)
    alice = made.of(base, "alice", "10.0.0.1")
    assert (alice.caller, alice.peer, alice.timeout) == ("alice", "10.0.0.1", 5.0)
    assert made.of(base, "alice", "10.0.0.1") is alice
    bob = made.of(base, "bob", "10.0.0.1")
    assert (bob.caller, bob.peer) == ("bob", "10.0.0.1")
    assert made.of(base, "alice", "10.0.0.2").peer == "10.0.0.2"
    assert made.of(base, None, None) == base.replace(caller=None, peer=None)


def test_another_base_is_never_answered_from_the_first() -> None:
    made = PerCallerOptions()
    first = made.of(CallOptions(timeout=1.0), "alice", None)
    other = made.of(CallOptions(timeout=2.0), "alice", None)
    assert (first.timeout, other.timeout) == (1.0, 2.0)


def test_a_flood_of_caller_names_keeps_a_bounded_memory() -> None:
    made, base = PerCallerOptions(), CallOptions()
    for i in range(5_000):  # a proxy header can name any number of callers
        assert made.of(base, f"caller-{i}", "10.0.0.1").caller == f"caller-{i}"
    assert len(made._made) <= 1024
