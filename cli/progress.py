"""Progress bars for long commands: tasks done, simulated date, rate and time left.

Bars go to stderr and only when stderr is a terminal, so piped output and ``--json`` stay clean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.text import Text


Tick = Callable[[int], None]
"""Called once per task done, with the simulated minute it ended at."""


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} tasks/s")


@contextmanager
def task_progress(console: Console, total: int, description: str, enabled: bool = True) -> Iterator[Tick | None]:
    """A bar over ``total`` tasks; yields ``None`` (nothing to call) when it would not be shown."""
    from campus.kernel.clock import label

    if not enabled or not console.is_terminal or total <= 0:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[when]}"),
               _Rate(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total, when="")

        def tick(t: int) -> None:
            bar.update(task, advance=1, when=label(t))

        yield tick
