"""Who sees what of the results: the organiser's reveal policy for games' full views and the
class option that hides the participants' results from each other (settings ARENA_SITE_REVEAL
and ARENA_SITE_HIDE_RESULTS, read from the environment `arena serve` is given). Staff see
everything; a participant always sees their own bots."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ImproperlyConfigured

from arena.site.contest.models import Bot, Season

__all__ = ["REVEALS", "full_view", "hides_from", "own_bots", "reveal"]

REVEALS = {
    "game": "",
    "season": "The full view of every game (every seat's dice or cards) opens when the "
              "season closes.",
    "never": "The organiser keeps games' full views private: each bot's owner sees its own "
             "seat's view on the bot's page.",
}
"""The policies, and what a page says while one keeps a game's full view closed."""

User = AbstractBaseUser | AnonymousUser


def reveal() -> str:
    """The policy in force; a wrong value stops the site with one line."""
    value = str(settings.ARENA_SITE_REVEAL)
    if value not in REVEALS:
        raise ImproperlyConfigured(
            f"ARENA_SITE_REVEAL must be one of {', '.join(REVEALS)}, not {value!r}")
    return value


def _staff(user: User) -> bool:
    return bool(getattr(user, "is_staff", False))


def full_view(user: User) -> tuple[bool, str]:
    """Whether this user may watch a played game in full, and else when it opens."""
    policy = reveal()
    if _staff(user) or policy == "game" or (policy == "season" and Season.current().closed):
        return True, ""
    return False, REVEALS[policy]


def hides_from(user: User) -> bool:
    """Whether other participants' results are hidden from this user (a class's option)."""
    return bool(settings.ARENA_SITE_HIDE_RESULTS) and not _staff(user)


def own_bots(user: User) -> frozenset[str]:
    """The names of this user's bots, case-folded as the ladder's names are unique."""
    if not user.is_authenticated:
        return frozenset()
    return frozenset(Bot.objects.filter(owner_id=user.pk).values_list("key", flat=True))
