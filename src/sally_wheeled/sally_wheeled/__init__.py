"""Wheeled Sally: the four-wheeled omnidirectional magnetic platform the project started from.

An MJCF built in memory with ``MjSpec`` (:mod:`.model`), the legged sim's dipole-dipole magnet
model applied at each wheel's contact face (:mod:`.platform`), drive modes with their costs
(:mod:`.modes`), a viewer (:mod:`.viewer`) and Gaussian-process tuning (:mod:`.tuning`)."""
