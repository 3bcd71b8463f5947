"""Telling a version's owner, once a version, that it failed its check, was rejected by its
validation deal or faulted in a game (Django's send_mail: the console backend unless the
site has a mail server)."""

from __future__ import annotations

from django.core.mail import send_mail

from arena.site.contest.models import Version

__all__ = ["tell"]


def tell(version: Version, what: str) -> bool:
    """Mail the owner `what` about this version unless it was told already; whether it mailed.
    An owner without an address is marked told too: the bot's page says it either way."""
    if version.notified:
        return False
    owner = version.bot.owner
    sent = False
    if getattr(owner, "email", ""):
        subject = f"arena: your bot {version.bot.name} (version {version.number}) needs you"
        body = (f"{what}\n\nIts page shows the details: /bots/{version.bot.name}\n"
                "(you get one message a version)")
        sent = send_mail(subject, body, None, [owner.email], fail_silently=True) > 0
    Version.objects.filter(pk=version.pk).update(notified=True)
    version.notified = True
    return sent
