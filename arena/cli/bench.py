"""`arena bench`: speed of the rules layer and the referee, as medians of several runs, and
both against OpenSpiel's liars_dice when pyspiel is installed."""

from __future__ import annotations

import click

from arena.bench import CASES, OPENSPIEL_GAME, run, versus_openspiel


@click.command(name="bench")
@click.option("--seconds", default=1.0, show_default=True, help="Length of one timed run.")
@click.option("--repeat", default=5, show_default=True, help="Runs per case (median reported).")
@click.option("--quick", is_flag=True, help="Only 2-player dice (the headline figure).")
def bench(seconds: float, repeat: int, quick: bool) -> None:
    """Measure games/s and decisions/s of the rules alone and through the referee."""
    cases = (("dice", 2),) if quick else CASES
    click.echo(f"{'layer':8} {'rules':11} {'players':>7} {'games/s':>9} {'decisions/s':>12} "
               f"{'vs rules':>8}")
    baseline = 0.0
    for rate in run(seconds, repeat, cases):
        if rate.layer == "rules":
            baseline = rate.decisions_per_s
        ratio = rate.decisions_per_s / baseline if baseline else 0.0
        click.echo(f"{rate.layer:8} {rate.rules:11} {rate.players:>7} {rate.games_per_s:>9.0f} "
                   f"{rate.decisions_per_s:>12.0f} {ratio:>8.2f}")
    click.echo(f"(median of {repeat} runs of {seconds:g}s each, one core)")
    _openspiel(seconds, repeat)


def _openspiel(seconds: float, repeat: int) -> None:
    """The referee and the rules against OpenSpiel's liars_dice, in the same rounds."""
    micros = versus_openspiel(seconds, repeat)
    if micros is None:
        click.echo("OpenSpiel: not installed (pip install open_spiel)")
        return
    name, parameters = OPENSPIEL_GAME
    click.echo(f"\nagainst OpenSpiel's {name} ({parameters['players']} players, "
               f"{parameters['numdice']} dice each, an information-state string per decision),"
               "\narena's 2-player dice:")
    click.echo(f"{'layer':10} {'us/decision':>11} {'vs OpenSpiel':>12}")
    for layer, micro in micros.items():
        click.echo(f"{layer:10} {micro:>11.2f} {micro / micros['openspiel']:>12.2f}")
    click.echo(f"(median of {repeat} interleaved runs of {seconds:g}s each, one core)")
