"""What the job's stages carry from one to the next: :class:`RunState`.

The declared sequence (:mod:`memmaint.maintenance.job.pipeline`) runs its stages in order over
one ``RunState``; each stage reads what the stages before it left and fills in its own part
(the loaded pool, the clustering, the plan, the outcome, the applied result). A value, never a
global: the job, ``compare_configs`` and the tuner each make their own.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.job.outcome import Clustered, Pool
from memmaint.maintenance.job.stages import Stages
from memmaint.maintenance.report.model import ConfigOutcome, RunReport

#: ``progress(stage, done, total)``: called as a stage advances (the CLI draws a bar).
ProgressFn = Callable[[str, int, int], None]


@dataclass
class RunState:
    """One pass of the declared stages: the inputs a run is given and what its stages make.

    Inputs: ``config`` is the configuration whose reduction and clustering run,
    ``agents_config`` the one whose agents plan (the primary's for a shadow; ``None``: the
    same); ``prefix`` is put before this pass's timing names (``"shadow "``). ``loader`` and
    ``planner`` are the job's load and plan functions (looked up when the run starts);
    ``cluster_one`` replaces the per-namespace reduce-and-cluster of an unsharded namespace
    by one that gives the same labels faster (the tuner's caches).
    """

    config: Config
    stages: Stages = field(default_factory=Stages)
    store: Any = None
    report: RunReport | None = None
    agents_config: Config | None = None
    name: str = "primary"
    prefix: str = ""
    now: datetime | None = None
    progress: ProgressFn | None = None
    executor: Any = None
    dry_run: bool = False
    force: bool = False
    full: bool = False
    shadow: Config | None = None
    selected: list[str] = field(default_factory=list)
    plan_id: str | None = None
    plan_sink: Callable[[Any], None] | None = None
    loader: Callable[..., Any] | None = None
    planner: Callable[..., Any] | None = None
    cluster_one: Callable[..., Any] | None = None
    #: non-empty once the run may have written to the store (the embedding cache)
    writing: list[bool] = field(default_factory=list)
    #: incremental: the states the next run starts from (saved after the commit)
    states: list[Any] = field(default_factory=list)
    # -- made by the stages
    last: dict[str, Any] = field(default_factory=dict)
    seen: int | None = None
    chosen: list[str] = field(default_factory=list)
    when: datetime | None = None
    checked: Any = None
    embedder: Any = None
    incremental: bool = False
    inc: Any = None
    whole: Pool | None = None
    pool: Pool | None = None
    placed: dict[str, Any] = field(default_factory=dict)
    clustered: Clustered | None = None
    n_groups: int = 0  # the clusters (noise: singletons) the planner was given
    plan: Any = None
    outcome: ConfigOutcome | None = None
    result: Any = None
    own_start: int | None = None
    #: set by a stage to end the pass there (a skipped run)
    stop: bool = False
    #: the stages this pass ran, in order (a dry run's previews as ``"apply (preview)"``)
    ran: list[str] = field(default_factory=list)
    #: what the stages open and the runner closes when the pass ends (the transaction)
    exits: ExitStack = field(default_factory=ExitStack)

    @property
    def agents(self) -> Config:
        """The configuration whose agents plan."""
        return self.config if self.agents_config is None else self.agents_config
