"""Stale Fast DDS segments are found and removed; live ones (held by a process) are kept."""

import fcntl
import os

from sally_bringup.shm import remove_stale_segments, stale_segments


def make(shm, name, data=b"x"):
    path = shm / name
    path.write_bytes(data)
    return path


def test_locked_segments_are_live_and_unlocked_ones_stale(tmp_path):
    for base in ("fastdds_port7411", "fastdds_abc"):
        make(tmp_path, base)
        make(tmp_path, f"{base}_el")
    make(tmp_path, "sem.fastdds_port7411_mutex")
    fd = os.open(tmp_path / "fastdds_abc_el", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a live owner
    try:
        removed = sorted(remove_stale_segments(tmp_path))
        assert removed == ["fastdds_port7411", "fastdds_port7411_el", "sem.fastdds_port7411_mutex"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["fastdds_abc", "fastdds_abc_el"]
    finally:
        os.close(fd)
    assert sorted(remove_stale_segments(tmp_path)) == ["fastdds_abc", "fastdds_abc_el"]


def test_orphans_without_a_lock_file_are_removed_unless_in_use(tmp_path):
    orphan = make(tmp_path, "fastdds_port9000")
    held = make(tmp_path, "fastdds_port9001")
    with open(held, "rb"):  # a live process (this one) holds it open
        stale = stale_segments(tmp_path)
    assert orphan in stale and held not in stale
    assert held in stale_segments(tmp_path)  # closed: nobody holds it any more
    assert make(tmp_path, "unrelated_file") not in stale_segments(tmp_path)


def test_each_file_is_removed_while_its_lock_is_held(tmp_path, monkeypatch):
    """A participant starting beside the clean-up takes a free port at once: a file unlinked after
    its lock was let go could be the new owner's. Every unlink happens under the lock."""
    from pathlib import Path

    for base in ("fastdds_port7000", "fastdds_1f0a9bad"):
        make(tmp_path, base)
        make(tmp_path, f"sem.{base}_mutex")
        make(tmp_path, f"{base}_el")
    unlink, seen = Path.unlink, {}

    def unlink_checking_the_lock(path, missing_ok=False):
        base = path.name.removeprefix("sem.").removesuffix("_mutex").removesuffix("_el")
        try:
            fd = os.open(path.parent / f"{base}_el", os.O_RDWR)
        except FileNotFoundError:
            seen[path.name] = "no lock file"
            return unlink(path, missing_ok)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen[path.name] = "free"
        except BlockingIOError:
            seen[path.name] = "held"
        finally:
            os.close(fd)
        unlink(path, missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink_checking_the_lock)
    removed = remove_stale_segments(tmp_path)
    assert set(seen.values()) == {"held"}, seen
    assert sorted(removed) == sorted(seen) and len(removed) == 6
    assert removed.index("fastdds_port7000_el") > removed.index("fastdds_port7000")  # the lock file last
