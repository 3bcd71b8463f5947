"""`arena publish RESULTS_DIR OUT`: the public part of a results folder, with its report
and viewer, in a folder any web server (or a file:// browser) shows as it is."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.main import fail, size_text


@click.command(name="publish")
@click.argument("folder", type=click.Path(path_type=Path), metavar="RESULTS_DIR")
@click.argument("out", type=click.Path(path_type=Path), metavar="OUT")
@click.option("--force", is_flag=True, help="Replace OUT if it holds an earlier published copy.")
@click.option("--zip", "archive", is_flag=True, help="Also write OUT.zip, the same files.")
def publish(folder: Path, out: Path, force: bool, archive: bool) -> None:
    """Copy what the public may see of RESULTS_DIR to OUT and build its report there.

    OUT gets report.html, the viewer, the replays and the tables, with links that work from
    disk and from any web server; never the secret seed, the bots' code, what the bots
    wrote to stderr, tracebacks or local paths (docs/report.md, "Publishing a contest").
    """
    from arena.report.folder import ReportError
    from arena.report.publish import PublishError
    from arena.report.publish import publish as publish_folder

    try:
        done = publish_folder(folder, out, force=force, archive=archive)
    except (PublishError, ReportError) as exc:
        fail(str(exc))
        return
    size = size_text(done.bytes)
    click.echo(f"published: {done.path}/report.html ({done.files:,} files, {size}; "
               f"{done.games:,} games)")
    if done.archive is not None:
        click.echo(f"archive: {done.archive}")
    if done.left_out:
        click.echo(f"left out of {folder}: {', '.join(done.left_out)}")
