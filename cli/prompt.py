"""``campus prompt``: the exact request a model was sent at one step of a run, rebuilt from the log and
the agent spec (``lab.prompt_check``) and checked against the hash stored beside the reply.

Registered in ``cli/main.py``.
"""

from __future__ import annotations

import json

import typer
from rich.markup import escape

from campus.cli.common import DB, JSON, emit_json, err, open_db, out


def prompt(
    run_id: str = typer.Argument(..., metavar="RUN", help="A model's run."),
    task: str = typer.Option(..., "--task", metavar="ID", help="The task (its id, as in the report or tasks.csv)."),
    step: int = typer.Option(1, "--step", metavar="N", help="The model's N-th reply in that task (the report's step N)."),
    db: str = DB,
    as_json: bool = JSON,
) -> None:
    """Show the exact request (messages and tools) the model was sent for one reply: rebuilt from the
    log and the run's agent spec, and checked against the request hash stored beside the reply.

    Exit 1 if the rebuilt request does not hash to the stored one. With --json, the request itself (as sent to the chat-completions endpoint) with both hashes.
    """
    from campus.lab.prompt_check import rebuild_request
    from campus.scenarios.play import open_run

    with open_db(db, read_only=True) as store:
        rebuilt = rebuild_request(open_run(store, run_id), task, step)
    matches = None if rebuilt.recorded is None else rebuilt.recorded == rebuilt.sha256
    if as_json:
        emit_json({"run": run_id, "task_id": rebuilt.task_id, "step": rebuilt.step, "reply": rebuilt.reply,
                   "request": rebuilt.request, "sha256": rebuilt.sha256, "recorded_sha256": rebuilt.recorded, "matches": matches})
    else:
        request = rebuilt.request
        out.print(f"[bold]{escape(run_id)}[/] · task {escape(task)} · step {step} (reply {rebuilt.reply} of the run) · "
                  f"model {escape(str(request.get('model')))}", markup=True, highlight=False)
        for message in request["messages"]:
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            calls = message.get("tool_calls")
            out.print(f"\n--- {message['role']}", style="bold", highlight=False)
            out.print(text or "", markup=False, highlight=False)
            if calls:
                out.print(json.dumps(calls, ensure_ascii=False), markup=False, highlight=False)
        tools = request.get("tools") or []
        settings = {k: v for k, v in request.items() if k not in ("messages", "tools")}
        out.print(f"\n{len(tools)} tool schema(s) offered; settings {json.dumps(settings)}", markup=False, highlight=False)
        out.print(f"request sha256 {rebuilt.sha256}", highlight=False)
        if matches is None:
            out.print("no request hash was stored beside this reply, so nothing to check it against", highlight=False)
        elif matches:
            out.print("matches the hash stored beside the reply", highlight=False)
        else:
            err.print(f"[bold red]differs[/] from the hash stored beside the reply ({escape(str(rebuilt.recorded))}): the "
                      "agent spec no longer rebuilds what was sent", markup=True, highlight=False)
    if matches is False:
        raise typer.Exit(1)
