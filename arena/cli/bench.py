"""`arena bench`: speed of the rules layer and the referee, as medians of several runs, and
both against OpenSpiel's liars_dice when pyspiel is installed."""

from __future__ import annotations

import click

from arena.bench import CASES, OPENSPIEL_GAME, breakdown, run, versus_openspiel

PARTS = (
    ("rules", "the rules layer (observe, legal, apply, chance, random_action)"),
    ("bot", "the bot's act over random_action (a method call)"),
    ("host", "the host call (InlineHost.act without the bot)"),
    ("clock", "  the clock in these (3 perf_counter reads, 2 in the host)"),
    ("log", "the event log (answers, chance outcomes, events)"),
    ("game", "each game's set-up and end (bots, seeds, alarm, record)"),
    ("rest", "the referee's loop and the rest (the remainder)"),
    ("referee", "the referee, in all"),
    ("notify", "notify: dispatching events, when a bot listens"),
)
"""The breakdown's lines: the parts that add up to the referee, then one it skips here."""


@click.command(name="bench")
@click.option("--seconds", default=1.0, show_default=True, help="Length of one timed run.")
@click.option("--repeat", default=5, show_default=True, help="Runs per case (median reported).")
@click.option("--quick", is_flag=True, help="Only 2-player dice (the headline figure).")
@click.option("--breakdown", "parts", is_flag=True,
              help="Only what the referee adds over the rules, part by part (2-player dice).")
def bench(seconds: float, repeat: int, quick: bool, parts: bool) -> None:
    """Measure games/s and decisions/s of the rules alone and through the referee."""
    if parts:
        _breakdown(seconds, repeat)
        return
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


def _breakdown(seconds: float, repeat: int) -> None:
    """Microseconds per decision of each part of the referee over the rules."""
    micros = breakdown(seconds, repeat)
    counted = ("rules", "bot", "host", "log", "game")
    micros["rest"] = micros["referee"] - sum(micros[name] for name in counted)
    click.echo("2-player dice, inline random bots, us per decision "
               "(each part timed alone on the same games):")
    for name, words in PARTS:
        click.echo(f"{words:58} {micros[name]:>7.2f}")
    click.echo(f"(median of {repeat} interleaved rounds, {seconds:g}s per run of the layers, "
               "one core; random bots do not listen, so notify is not part of the referee here)")
