"""`arena site ...`: the organiser's commands for a site's participants (the accounts in its
data folder's database), and the season process `arena serve` starts.

Each command opens the site the way `arena serve` does (`open_site`: the config checked, the
data folder's database migrated), calls one function of arena.site.contest.accounts, and
prints one line a participant. Secrets are printed once and kept only hashed.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.cli.main import fail, load_registry

__all__ = ["has_season", "open_site", "read_roster", "site"]

F = TypeVar("F", bound=Callable[..., Any])

SERVED = "a ladder (format: {type: ladder}) or a class (a gauntlet with grades)"
"""The configs a site serves (docs/site.md)."""


def open_site(config: str, data: str | None) -> Path:
    """Check the config, start Django on its data folder (default results/<name>-site, made
    private to its owner) and bring the database's tables up to date; the data folder."""
    from arena.tournament.config import ConfigError
    from arena.tournament.load import load_tournament

    try:
        cfg = load_tournament(config, load_registry())
    except ConfigError as exc:
        fail(str(exc))
    if cfg.format.type != "ladder" and not (cfg.format.type == "gauntlet" and cfg.grades):
        fail(f"{config}: a site serves {SERVED}, not a {cfg.format.type}")
    folder = Path(data or f"results/{cfg.name}-site")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot make the data folder {folder}: {exc.strerror}")
    _migrate(config, folder)
    return folder.resolve()


def _migrate(config: str, folder: Path) -> None:
    """Start Django on this contest and apply the migrations, quietly; a database that
    cannot be reached is one line."""
    import django.db
    from django.core.management import call_command

    from arena.site import setup

    setup(config, folder)
    try:
        call_command("migrate", verbosity=0, interactive=False)
    except django.db.Error as exc:
        fail(f"the site's database: {str(exc).strip().splitlines()[0]}")


def _config_option(command: F) -> F:
    """`--config CONFIG` (required) and `--data DIR`, as `arena serve` takes them."""
    command = click.option("--data", type=click.Path(file_okay=False), default=None,
                           help="The site's data folder (default: results/<name>-site).")(command)
    return click.option("--config", "config", required=True, type=click.Path(dir_okay=False),
                        help="The contest's config, as given to arena serve.")(command)


@click.group(name="site")
def site() -> None:
    """The site's participants (docs/site.md): add them, invite them, their API tokens."""


@site.command(name="add-user")
@click.argument("name")
@click.option("--staff", is_flag=True, help="An organiser or teacher (the admin, grades).")
@click.option("--email", default="", help="Where the site writes to them.")
@_config_option
def add_user(name: str, config: str, data: str | None, staff: bool, email: str) -> None:
    """Add a participant and print their API token (for arena submit), once."""
    open_site(config, data)
    from arena.site.contest.accounts import AccountError, add_participant
    from arena.site.contest.models import ApiToken

    email = _email(email, "--email")
    try:
        user = add_participant(name, email, staff=staff)
    except AccountError as exc:
        fail(str(exc))
    _, secret = ApiToken.issue(user)
    click.echo(f"added {name}; API token (shown once): {secret}")


@site.command(name="roster")
@click.argument("roster", type=click.Path(dir_okay=False, exists=True))
@click.option("--url", "base", default="http://127.0.0.1:8000", show_default=True,
              help="The site's address, for the links.")
@_config_option
def roster(roster: str, config: str, data: str | None, base: str) -> None:
    """Add each participant of a roster (one a line: NAME or NAME,EMAIL; # comments) who
    is missing, and print each one's one-time sign-in link."""
    people = read_roster(Path(roster))
    open_site(config, data)
    from django.contrib.auth.models import User
    from django.db import transaction

    from arena.site.contest.accounts import sign_in_link

    with transaction.atomic():  # a roster with a refused name adds no one
        users = [User.objects.filter(username=name).first()
                 or _added(f"{roster}, line {number}", name, email)
                 for number, name, email in people]
    for user in users:
        click.echo(f"{user.username} {sign_in_link(user, base)}")


def _added(where: str, name: str, email: str) -> Any:
    """A new participant, or a one-line error naming the roster's line."""
    from arena.site.contest.accounts import AccountError, add_participant

    try:
        return add_participant(name, email)
    except AccountError as exc:
        fail(f"{where}: {exc}")


def read_roster(path: Path) -> list[tuple[int, str, str]]:
    """The roster's participants: (line number, name, e-mail or ''), or a one-line error
    naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{path}: cannot read the roster: {exc}")
    people = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = [w.strip() for w in line.split("#", 1)[0].split(",")]
        if words == [""]:
            continue
        if len(words) > 2 or not words[0]:
            fail(f"{path}, line {number}: a roster line is NAME or NAME,EMAIL, got {line!r}")
        people.append((number, words[0], _email(words[1] if len(words) > 1 else "",
                                                 f"{path}, line {number}")))
    return people


def _email(email: str, where: str) -> str:
    """An e-mail address checked as Django checks one, or a one-line error naming `where`."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    if email:
        try:
            validate_email(email)
        except ValidationError:
            fail(f"{where}: {email!r} is not an e-mail address")
    return email


@site.command(name="invite")
@click.option("--uses", type=click.IntRange(min=1), default=None,
              help="How many may join with it (default: any number).")
@_config_option
def invite(config: str, data: str | None, uses: int | None) -> None:
    """Print a new invite code: with it anyone may join at /join (withdraw it in the admin)."""
    open_site(config, data)
    from arena.site.contest.accounts import new_invite

    code = new_invite(uses)
    limit = "any number of participants" if uses is None else f"{uses} participant" + (
        "s" * (uses != 1))
    click.echo(f"invite code (shown once; for {limit}): {code}")


@site.command(name="link")
@click.argument("name")
@click.option("--url", "base", default="http://127.0.0.1:8000", show_default=True,
              help="The site's address, for the link.")
@_config_option
def link(name: str, config: str, data: str | None, base: str) -> None:
    """Print a one-time sign-in link for one participant: an organiser added by add-user, or
    anyone whose link was spent or lost (it spends their older links)."""
    open_site(config, data)
    from arena.site.contest.accounts import AccountError, sign_in_link, user_named

    try:
        user = user_named(name)
    except AccountError as exc:
        fail(str(exc))
    click.echo(f"{name} {sign_in_link(user, base)}")


@site.command(name="token")
@click.argument("name")
@_config_option
def token(name: str, config: str, data: str | None) -> None:
    """Issue a new API token for a participant (their old ones still work until revoked)."""
    open_site(config, data)
    from arena.site.contest.accounts import AccountError, user_named
    from arena.site.contest.models import ApiToken

    try:
        user = user_named(name)
    except AccountError as exc:
        fail(str(exc))
    _, secret = ApiToken.issue(user)
    click.echo(f"new API token for {name} (shown once): {secret}")


@site.command(name="revoke")
@click.argument("name")
@_config_option
def revoke(name: str, config: str, data: str | None) -> None:
    """Revoke every API token of a participant."""
    open_site(config, data)
    from arena.site.contest.accounts import AccountError, revoke_tokens, user_named

    try:
        count = revoke_tokens(user_named(name))
    except AccountError as exc:
        fail(str(exc))
    click.echo(f"revoked {count} API token{'s' * (count != 1)} of {name}")


@site.command(name="season")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--data", type=click.Path(file_okay=False), default=None,
              help="The site's data folder (default: results/<name>-site).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes for the games (default: one).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play the games on the Dask cluster at ADDRESS (docs/cluster.md).")
@click.option("--batch-games", "batch_games", type=click.IntRange(min=1), default=None,
              metavar="N", help="Games a ladder batch (default: the format's tables a batch "
              "at every rotation); the season looks for uploads between batches.")
def season(config: str, data: str | None, workers: int | None, cluster: str | None,
           batch_games: int | None) -> None:
    """The season process: checks uploads and plays the ladder (arena serve starts it; it can
    run alone, on another machine that shares the database and folders)."""
    folder = open_site(config, data)
    season_main()(config=config, data=folder, workers=workers, cluster=cluster, once=False,
                  batch_games=batch_games)


def season_main() -> Any:
    """arena.site.season.main, or a one-line error when this arena has no season process."""
    if not has_season():
        fail("this arena has no season process yet (arena.site.season is missing)")
    return importlib.import_module("arena.site.season").main


def has_season() -> bool:
    """Whether this arena has the season process (the module that plays a site's games)."""
    return importlib.util.find_spec("arena.site.season") is not None

