"""Domain leases: one holder per ROS domain id across processes, and a domain just released rests
while others are free (a participant killed without a goodbye stays on its domain's graph until its
lease runs out). Lock files only; no DDS is started here."""

import os
import time

import pytest

from sally_bringup import environment
from sally_bringup.environment import DOMAIN_IDS, REUSE_AFTER, NoFreeDomainError, lease_domain


@pytest.fixture
def locks(tmp_path, monkeypatch):
    monkeypatch.setenv("SALLY_DOMAIN_LOCK_DIR", str(tmp_path))
    return tmp_path


def test_a_held_domain_is_not_leased_twice(locks):
    with lease_domain() as a, lease_domain() as b:
        assert a.domain_id != b.domain_id
        assert a.domain_id in DOMAIN_IDS and b.domain_id in DOMAIN_IDS


def test_a_domain_just_released_rests_while_others_are_free(locks):
    first = lease_domain()
    first.release()
    assert time.time() - (locks / f"{first.domain_id}.lock").stat().st_mtime < REUSE_AFTER
    held = []
    try:
        for _ in range(len(DOMAIN_IDS) - 1):  # every other domain comes before it (each held)
            held.append(lease_domain())
        taken = {lease.domain_id for lease in held}
        assert first.domain_id not in taken and len(taken) == len(DOMAIN_IDS) - 1
        held.append(lease_domain())  # the last free one: resting or not, it is leased
        assert held[-1].domain_id == first.domain_id
        with pytest.raises(NoFreeDomainError, match="every ROS domain"):
            lease_domain()
    finally:
        for lease in held:
            lease.release()


def test_a_rested_domain_is_leased_again(locks, monkeypatch):
    monkeypatch.setattr(environment, "DOMAIN_IDS", range(5, 7))
    for rested, resting in ((5, 6), (6, 5)):
        for domain, age in ((rested, REUSE_AFTER + 1), (resting, 0.0)):
            (locks / f"{domain}.lock").touch()
            when = time.time() - age
            os.utime(locks / f"{domain}.lock", (when, when))
        with lease_domain() as lease:
            assert lease.domain_id == rested


def test_a_preferred_domain_is_taken_even_when_just_released(locks):
    first = lease_domain(preferred=42)
    first.release()
    with lease_domain(preferred=42) as again:
        assert again.domain_id == 42


def test_a_domain_whose_holder_was_killed_rests_from_when_it_is_found(locks, monkeypatch):
    import signal
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from sally_bringup.environment import lease_domain;"
         " lease = lease_domain(preferred=5); print('held', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
    finally:
        holder.send_signal(signal.SIGKILL)  # no release: the lock file still says it is held
        holder.wait(timeout=30)
    monkeypatch.setattr(environment, "DOMAIN_IDS", range(5, 7))
    long_ago = time.time() - REUSE_AFTER - 100  # leased long before it was killed
    os.utime(locks / "5.lock", (long_ago, long_ago))
    (locks / "6.lock").touch()  # released just now
    with lease_domain() as other:
        assert other.domain_id == 6  # not the killed holder's, though it looks rested by its time
        assert time.time() - (locks / "5.lock").stat().st_mtime < REUSE_AFTER  # rests from now
        with lease_domain() as last:
            assert last.domain_id == 5  # the last free one: resting or not, it is leased
