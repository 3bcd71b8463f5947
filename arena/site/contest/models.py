"""What the database holds: accounts (Django's users), API tokens, invite codes, bots and
their versions (uploads, content-addressed in the data folder's store), and an index of the
games the season played. games.jsonl, the replays and ladder-log.jsonl stay the source of
truth: every row of Game and Seat can be rebuilt from the results folder."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

__all__ = ["ApiToken", "Bot", "Game", "HumanGame", "Invite", "Season", "Seat", "UploadAttempt",
           "Version", "digest"]


def digest(secret: str) -> str:
    """The sha256 a token or invite code is kept as (the secret itself is never stored)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A participant's token for `arena submit`: shown once, stored hashed, revocable."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="tokens")
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    revoked = models.DateTimeField(null=True, blank=True)
    last_used = models.DateTimeField(null=True, blank=True)

    @classmethod
    def issue(cls, user: models.Model) -> tuple[ApiToken, str]:
        """A new token for `user`: the row, and the secret to show once."""
        secret = "arena_" + secrets.token_urlsafe(32)
        return cls.objects.create(user=user, digest=digest(secret)), secret

    def __str__(self) -> str:
        return f"token {self.digest[:8]} of {self.user}"


class Invite(models.Model):
    """An invite code the organiser shares, when the config allows joining by one."""

    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    uses = models.PositiveIntegerField(default=0)
    max_uses = models.PositiveIntegerField(null=True, blank=True)
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"invite {self.digest[:8]} ({self.uses} used)"


class Bot(models.Model):
    """A participant's bot, named by its file's stem under the ladder's name rules."""

    name = models.CharField(max_length=64)
    key = models.CharField(max_length=64, unique=True, editable=False)
    """The name case-folded: `Bob` and `bob` are one name."""
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="bots")
    created = models.DateTimeField(auto_now_add=True)
    disabled = models.BooleanField(default=False)

    def save(self, *args: object, **kwargs: object) -> None:
        self.key = self.name.casefold()
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.name


class Version(models.Model):
    """One upload of a bot: its bytes (by sha256 in the store), its check and its status."""

    class Status(models.TextChoices):
        RECEIVED = "received", "received"
        CHECKING = "checking", "checking"
        FAILED_CHECK = "failed-check", "failed check-bot"
        WAITING = "waiting", "waiting for its validation deal"
        REJECTED = "rejected", "rejected by its validation deal"
        ACTIVE = "active", "active"
        RETIRED = "retired", "retired"
        DISABLED = "disabled", "disabled by the organiser"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=[("file", "file"), ("archive", "archive")])
    command = models.JSONField(default=list, blank=True)
    """An archive's command (a command bot in any language), as a list of words."""
    filename = models.CharField(max_length=255)
    """The uploaded file's name as sent (shown escaped, never used as a path)."""
    size = models.PositiveIntegerField()
    uploaded = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    problem = models.TextField(blank=True)
    """Why it failed its check or was rejected: one line its author can act on."""
    checklist = models.JSONField(default=list, blank=True)
    """check-bot's lines: [{"ok": true|false|null, "text": ...}]."""
    checked = models.DateTimeField(null=True, blank=True)
    notified = models.BooleanField(default=False)
    """Whether its owner was mailed about its first failure."""
    player = models.CharField(max_length=140, blank=True)
    """The ladder's name for it (`alice@2`, its ladder-log.jsonl `player`), once it entered."""
    digest = models.CharField(max_length=80, blank=True)
    """The ladder's digest of it as the season handed it over (ladder-log.jsonl `digest`)."""
    retry_from = models.PositiveIntegerField(null=True, blank=True)
    """A re-run of rejected content: the ladder's log length when it was asked (retried
    until the log has a newer event for its digest)."""

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("bot", "number"), name="one_number_a_version"),
            models.UniqueConstraint(fields=("bot", "sha256"), name="one_version_a_content"),
        )
        indexes = (models.Index(fields=("status",)),)
        ordering = ("bot", "number")

    @property
    def entrant(self) -> str:
        """Its name in games.jsonl and ladder.json (`alice@2`): the ladder's once it entered."""
        return self.player or f"{self.bot.name}@{self.number}"

    def __str__(self) -> str:
        return self.entrant


class Game(models.Model):
    """A game of games.jsonl, indexed for the pages (rebuilt from the file if lost)."""

    number = models.PositiveIntegerField(unique=True)
    """Its line in games.jsonl, from 0 (a class: the order the season indexed it in)."""
    game_id = models.CharField(max_length=128, unique=True)
    seed = models.CharField(max_length=64)
    players = models.JSONField()
    """The seats' entrant names in seat order."""
    placements = models.JSONField()
    faulted = models.BooleanField(default=False)
    voided = models.BooleanField(default=False)
    indexed = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-number",)

    def __str__(self) -> str:
        return self.game_id


class Seat(models.Model):
    """One seat of an indexed game: who sat there, where they placed, any fault."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    entrant = models.CharField(max_length=140)
    version = models.ForeignKey(Version, on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="seats")
    """The uploaded version that sat here; null for a house bot."""
    placement = models.PositiveSmallIntegerField()
    fault = models.CharField(max_length=32, blank=True)
    fault_message = models.TextField(blank=True)

    class Meta:
        constraints = (models.UniqueConstraint(fields=("game", "seat"), name="one_row_a_seat"),)
        indexes = (models.Index(fields=("version", "game")), models.Index(fields=("entrant",)))

    def __str__(self) -> str:
        return f"{self.entrant} in {self.game}"


class Season(models.Model):
    """The season process's state: how far the index has read, its heartbeat, closed or not."""

    games_offset = models.PositiveBigIntegerField(default=0)
    """Bytes of games.jsonl already indexed."""
    games_indexed = models.PositiveIntegerField(default=0)
    log_offset = models.PositiveBigIntegerField(default=0)
    """Events of ladder-log.jsonl already read into the versions' statuses."""
    heartbeat = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=200, blank=True)
    closed = models.BooleanField(default=False)

    @classmethod
    def current(cls) -> Season:
        """The one row (made on first use)."""
        season, _ = cls.objects.get_or_create(pk=1)
        return season

    def __str__(self) -> str:
        return f"season: {self.games_indexed} games indexed"


class HumanGame(models.Model):
    """A seat a person plays in the browser against a bot (never part of any ranking)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="human_games")
    opponent = models.CharField(max_length=140)
    rules = models.CharField(max_length=32)
    seed = models.PositiveBigIntegerField()
    moves = models.JSONField(default=list)
    """The person's moves so far: the game is replayed from the seed and these."""
    finished = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user} against {self.opponent}"


class UploadAttempt(models.Model):
    """An upload a participant made, taken or refused, kept an hour: the rate limit counts
    these, so a flood of refused uploads is as limited as one of new versions."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="upload_attempts")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = (models.Index(fields=("user", "at")),)

    def __str__(self) -> str:
        return f"upload by {self.user} at {self.at}"
