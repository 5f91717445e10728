"""How the book runs: the machinery between a chapter's experiment and its pages.

Modules (one concept each): :mod:`.experiment` (``run_grid``: a grid of parameter cells ×
replicates, the replicate seeds, the parallel backends and the task cache), :mod:`.blocks`
(independent blocks of one long task as Dask tasks of their own), :mod:`.estimate` (the cost
report of ``--estimate``), :mod:`.runner` (a chapter run: jupytext → papermill, results and
manifest), :mod:`.manifest` (what a run records), :mod:`.compare` (two runs compared file by
file), :mod:`.book` (every chapter run, staged and built into the offline site), :mod:`.bundle`
(the runs of a build in one results file, to publish and rebuild from); private:
``_lock`` (a run folder's lock), ``_environ`` (the workers' environment), ``_stop`` (a run
stopped by SIGTERM or SIGINT) and ``_grid_records`` (what each grid of a chapter run did: its
progress and profile, kept in the manifest).
"""
