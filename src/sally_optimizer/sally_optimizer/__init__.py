"""Offline CMA-ES identification of Sally's physics parameters (the combined optimizer).

Each candidate runs three headless graphs (floor lift, wall hold, pull-off) and is scored from
what those graphs publish. Modules: :mod:`space` (the 14 dimensions and their transform),
:mod:`scenarios` (the graphs and their costs), :mod:`evaluation` (one candidate, either backend),
:mod:`inprocess` (the node classes on one executor), :mod:`results` (the run folder's files),
:mod:`optimizer` (the CMA-ES loop), :mod:`replay` and :mod:`cli`.
"""
