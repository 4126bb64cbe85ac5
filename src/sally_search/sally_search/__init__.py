"""What every parameter search of the project shares: unit-cube coordinates for a search space of
:class:`~sally_description.params.Dim` (:mod:`.space`), the results folder's crash-safe CSV and
JSON files (:mod:`.records`) and the convergence plot (:mod:`.convergence`). Used by the legged
CMA-ES (``sally_optimizer``), the wheeled platform's Gaussian-process tuning (``sally_wheeled``)
and the electromagnet bench."""
