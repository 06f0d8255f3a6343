"""``toolkit demo``: an agent over local and remote tools, offline unless a model is configured."""

from __future__ import annotations

from typing import Annotated

import typer

from adapters.cli._render import console, err_console

__all__ = ["demo_command"]


def demo_command(
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Approve the destructive call without asking.")
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Model name at the OpenAI-compatible endpoint (default: $OPENAI_MODEL or "
            "gpt-4o-mini). Needs OPENAI_API_KEY.",
        ),
    ] = None,
    max_iterations: Annotated[
        int,
        typer.Option(
            "--max-iterations", min=0, help="Model turns with tool calls before it must answer."
        ),
    ] = 10,
    no_remote: Annotated[
        bool, typer.Option("--no-remote", help="Do not start the carriers MCP server.")
    ] = False,
    checkpoint: Annotated[
        str | None,
        typer.Option(
            "--checkpoint",
            help="SQLite file or postgresql:// URL keeping the run: a pending approval can be "
            "answered by a later run with the same one, on any machine that reaches it.",
        ),
    ] = None,
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="native: the model's function calling; xml: the <ACTION> text protocol, "
            "for models without function calling.",
        ),
    ] = "native",
) -> None:
    """Watch an agent use local functions and remote MCP tools from one registry.

    It recovers from a failing call, waits for approval before a destructive one, logs each call.

    Offline with a scripted model unless OPENAI_API_KEY is set.

    OPENAI_BASE_URL and OPENAI_MODEL pick any OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp).
    """
    # Imported here: the agent stack is heavy, and other commands should not pay for it.
    import anyio

    from adapters.cli._demo_model import ModelChoice, endpoint_problem
    from adapters.cli._demo_run import DemoOptions, run_demo

    choice = ModelChoice.from_env(model)
    if choice.offline and model:
        err_console.print(
            f"[red]error:[/] --model {model} needs OPENAI_API_KEY (for a local server such as "
            "Ollama any value works); without it the demo uses its scripted model."
        )
        raise typer.Exit(2)
    if protocol not in ("native", "xml"):
        err_console.print(f"[red]error:[/] --protocol must be native or xml, not {protocol!r}.")
        raise typer.Exit(2)
    options = DemoOptions(
        choice,
        approve=yes,
        max_iterations=max_iterations,
        remote=not no_remote,
        checkpoint=checkpoint,
        protocol=protocol,
    )
    try:
        anyio.run(run_demo, options, console)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    except BaseExceptionGroup as group:
        # Rich exits on a closed stdout (`toolkit demo | head`); the MCP pool's task group wraps
        # that exit in a group, which is no reason for a traceback.
        if group.subgroup(SystemExit) is None:
            raise
        raise SystemExit(1) from None
    except Exception as exc:
        problem = endpoint_problem(exc, choice)
        if problem is None:
            raise
        err_console.print(f"[red]error:[/] {problem}")
        raise typer.Exit(2) from None
