"""The errors of Sally's sensors, as their parts have them: white noise, a bias that starts at a
drawn value and walks, a resolution, a range and a latency (pure, numpy, seeded).

A :class:`Channel` is one sensor's error model (its figures in the sensor's unit); a
:class:`NoisySensor` applies it to a vector of readings, sample after sample, with its own random
stream, so that a run with one seed reads the same values every time. The defaults, each from its
part's datasheet, are in the sim package's ``config/sensors.yaml`` (:func:`load_channels`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import yaml

from .errors import SimulationError

SENSORS = ("gyro", "accel", "encoder", "encoder_velocity", "range", "contact")
"""Every sensor channel the sim models, by its key in ``sensors.yaml``."""


@dataclass(frozen=True)
class Channel:
    """One sensor's error model, every figure in the sensor's unit (rad/s, m/s^2, rad, m, N)."""

    white: float = 0.0
    """Standard deviation of each sample's white noise."""
    bias: float = 0.0
    """Standard deviation of the bias each axis starts a run with (what calibration leaves)."""
    bias_walk: float = 0.0
    """The bias's random walk: its standard deviation grows by this per sqrt(s)."""
    resolution: float = 0.0
    """The least step a reading can take (the LSB); 0: continuous."""
    limit: float = math.inf
    """The largest magnitude the sensor reads; beyond it the reading saturates."""
    latency: float = 0.0
    """How long a reading takes to reach the driver (s of sim time)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, (int, float)) or math.isnan(value) or value < 0:
                raise SimulationError(f"sensor noise {f.name} must be a number >= 0, got {value!r}")
        if self.limit == 0:
            raise SimulationError("sensor noise limit must be > 0 (math.inf: no limit)")

    @property
    def ideal(self) -> Channel:
        """The same sensor with no error and no latency (its range kept)."""
        return Channel(limit=self.limit)


class NoisySensor:
    """``channel`` applied to readings of ``size`` values, sampled every ``period`` s of sim time;
    its random stream drawn from ``rng``. :meth:`read` returns what the driver has at ``t``: the
    reading sampled ``latency`` earlier (the oldest one held until then)."""

    def __init__(self, channel: Channel, size: int, period: float, rng: np.random.Generator) -> None:
        if period <= 0:
            raise SimulationError(f"a sensor's sample period must be > 0 s, got {period!r}")
        self.channel, self.period, self._rng = channel, float(period), rng
        self._bias = rng.normal(0.0, channel.bias, size) if channel.bias > 0 else np.zeros(size)
        self._delay = max(0, round(channel.latency / self.period))
        self._queue: deque[np.ndarray] = deque(maxlen=self._delay + 1)

    @property
    def bias(self) -> np.ndarray:
        """The bias now (a copy)."""
        return self._bias.copy()

    def read(self, truth: np.ndarray) -> np.ndarray:
        """One sample of ``truth`` with this sensor's errors, as the driver has it after the latency."""
        c = self.channel
        if c.bias_walk > 0:
            self._bias += self._rng.normal(0.0, c.bias_walk * math.sqrt(self.period), self._bias.shape)
        value = np.asarray(truth, float) + self._bias
        if c.white > 0:
            value = value + self._rng.normal(0.0, c.white, value.shape)
        if c.resolution > 0:
            value = np.round(value / c.resolution) * c.resolution
        if math.isfinite(c.limit):
            value = np.clip(value, -c.limit, c.limit)
        self._queue.append(value)
        return self._queue[0]


def load_channels(path: str | Path, ideal: bool = False) -> dict[str, Channel]:
    """The channels of ``path`` (a ``sensors.yaml``: a mapping of :data:`SENSORS` to their figures);
    ``ideal``: each without error or latency. SimulationError names what is wrong in the file."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise SimulationError(f"sensor file {str(path)!r} could not be read: {exc}") from None
    if not isinstance(data, Mapping):
        raise SimulationError(f"sensor file {str(path)!r} must map each of {list(SENSORS)} to its figures")
    missing = [name for name in SENSORS if name not in data]
    unknown = [name for name in data if name not in SENSORS]
    if missing or unknown:
        raise SimulationError(
            f"sensor file {str(path)!r}: missing {missing}, unknown {unknown}; sensors: {list(SENSORS)}"
        )
    names = {f.name for f in fields(Channel)}
    channels = {}
    for name in SENSORS:
        figures = data[name] or {}
        bad = [key for key in figures if key not in names]
        if bad:
            raise SimulationError(
                f"sensor file {str(path)!r}: {name} has unknown figures {bad}; figures: {sorted(names)}"
            )
        try:
            channel = Channel(**{k: float(v) for k, v in figures.items()})
        except (TypeError, ValueError) as exc:
            raise SimulationError(f"sensor file {str(path)!r}: {name}: {exc}") from None
        channels[name] = channel.ideal if ideal else channel
    return channels


def seeded(seed: int, stream: int) -> np.random.Generator:
    """The random stream ``stream`` of a run seeded ``seed`` (each sensor its own, so that adding one
    sensor does not change another's draws)."""
    return np.random.default_rng([int(seed), int(stream)])
