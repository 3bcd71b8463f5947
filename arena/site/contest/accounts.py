"""Participants and their ways in: API tokens, invite codes, one-time sign-in links, and the
names people read on the pages.

Secrets are never stored: a token or an invite code is kept as its sha256 (models.digest) and
shown once; a sign-in link is django-sesame's signed, one-time token. A participant's name is
shown beside their bots, so it follows the ladder's own name rules (`name_refusal`): one a
person can read, and different from every other participant's and house entrant's in more
than case.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import ClassVar, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import (
    BaseUserCreationForm,
    PasswordChangeForm,
    SetPasswordForm,
    UsernameField,
)
from django.contrib.auth.models import User
from django.contrib.auth.views import PasswordChangeView
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.views import View
from django.views.decorators.http import require_POST
from sesame.utils import (  # type: ignore[import-untyped]  # django-sesame has no hints
    get_query_string,
    get_user,
)

from arena.site.contest.contest import current
from arena.site.contest.models import ApiToken, Invite, digest
from arena.tournament.formats.ladder.validation import name_refusal

T = TypeVar("T")

__all__ = ["AccountError", "add_participant", "claim_invite", "invite_problem", "invites_open",
           "name_problem", "new_invite", "revoke_tokens", "sign_in_link", "user_named",
           "user_of_token"]


class AccountError(ValueError):
    """A participant that cannot be added or found; the message says why, in one line."""


def user_of_token(secret: str) -> User | None:
    """The active participant whose unrevoked API token this is, or None (and when it was
    last used, for their account page)."""
    token = (ApiToken.objects.select_related("user")
             .filter(digest=digest(secret), revoked__isnull=True, user__is_active=True).first())
    if token is None:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
    return token.user


def name_problem(name: str) -> str | None:
    """Why a participant may not be called `name`, or None: the ladder's name rules, against
    the other participants and the contest's house entrants."""
    taken = {e.name: "house entrant" for e in current().config.entrants}
    taken.update({u: "participant" for u in
                  User.objects.filter(username__iexact=name).values_list("username", flat=True)})
    refusal = name_refusal(name, taken)
    if refusal is None:
        return None
    said = refusal.replace("its name", "the name", 1).removesuffix(" (rename the file)")
    return f"{said} (choose another name)"


def user_named(name: str) -> User:
    """The participant called exactly `name`, or AccountError."""
    user = User.objects.filter(username=name).first()
    if user is None:
        raise AccountError(f"no participant is called {name!r}")
    return user


def add_participant(name: str, email: str = "", *, staff: bool = False) -> User:
    """A new participant (an organiser or teacher with `staff`), who signs in by a link or
    sets a password later; AccountError if the name is refused."""
    problem = name_problem(name)
    if problem is not None:
        raise AccountError(problem)
    user = User.objects.create_user(name, email=email, is_staff=staff)  # no usable password
    return user


def revoke_tokens(user: User) -> int:
    """Revoke every live token of `user`; how many there were."""
    return ApiToken.objects.filter(user=user, revoked__isnull=True).update(
        revoked=timezone.now())


def sign_in_link(user: User, base: str) -> str:
    """A one-time sign-in link (django-sesame; it expires once used or after a week)."""
    return f"{base.rstrip('/')}/login/link{get_query_string(user)}"


def new_invite(uses: int | None) -> str:
    """A new invite code (at most `uses` sign-ups, or any number); shown once, kept hashed."""
    code = secrets.token_urlsafe(12)
    Invite.objects.create(digest=digest(code), max_uses=uses)
    return code


def invites_open() -> bool:
    """Whether anyone may join: some invite is active and not used up."""
    return _usable(Invite.objects.filter(active=True)).exists()


def invite_problem(code: str) -> str | None:
    """Why this invite code lets no one join now, in one line, or None."""
    invite = Invite.objects.filter(digest=digest(code.strip())).first()
    if invite is None:
        return "that invite code is not one of this contest's"
    if not invite.active:
        return "that invite code was withdrawn by the organiser"
    if invite.max_uses is not None and invite.uses >= invite.max_uses:
        return f"that invite code is used up ({invite.uses} of {invite.max_uses} places taken)"
    return None


def claim_invite(code: str, make: Callable[[], T]) -> T:
    """Take one use of the invite code and call `make()` in the same transaction (so a
    place is never taken without its account); AccountError if the code lets no one in."""
    with transaction.atomic():
        taken = _usable(Invite.objects.filter(digest=digest(code.strip()), active=True)).update(
            uses=F("uses") + 1)
        if not taken:
            raise AccountError(invite_problem(code) or "that invite code was just used up")
        return make()


def _usable(invites: QuerySet[Invite]) -> QuerySet[Invite]:
    """The invites among `invites` with a place left."""
    return invites.filter(Q(max_uses__isnull=True) | Q(uses__lt=F("max_uses")))


# --- pages: sign in by a link, join with a code, the account's tokens, e-mail and password ---


class JoinForm(BaseUserCreationForm[User]):
    """Django's sign-up form, with the invite code and the ladder's name rules (which also
    refuse a name that differs from another only in case)."""

    code = forms.CharField(label="Invite code", max_length=100)

    class Meta:
        model = User
        fields = ("username", "email")
        field_classes: ClassVar = {"username": UsernameField}

    def clean_username(self) -> str:
        name: str = self.cleaned_data["username"]
        problem = name_problem(name)
        if problem is not None:
            raise forms.ValidationError(problem)
        return name

    def clean_code(self) -> str:
        code: str = self.cleaned_data["code"]
        problem = invite_problem(code)
        if problem is not None:
            raise forms.ValidationError(problem)
        return code


class EmailForm(forms.ModelForm[User]):
    """Where the site writes to a participant (a failing bot, once a version)."""

    class Meta:
        model = User
        fields = ("email",)


class SignInLink(View):
    """A roster's one-time link: GET asks (so a mail scanner's visit spends nothing), POST
    signs in, which spends the link (django-sesame: it is bound to the last sign-in)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        person = get_user(request, update_last_login=False)
        return render(request, "contest/link.html", {"person": person},
                      status=200 if person is not None else 410)

    def post(self, request: HttpRequest) -> HttpResponse:
        person = get_user(request, update_last_login=False)
        if person is None:
            return render(request, "contest/link.html", {"person": None}, status=410)
        login(request, person)  # sets last_login: this link and every older one expire
        return redirect("account")


def join(request: HttpRequest) -> HttpResponse:
    """Sign up with an invite code the organiser shared (only while one is open)."""
    if request.user.is_authenticated:
        return redirect("account")
    if request.method != "POST":
        if not invites_open():
            raise Http404("joining is by invitation, and no invite is open")
        return render(request, "contest/join.html", {"form": JoinForm()})
    form = JoinForm(request.POST)
    if form.is_valid():
        try:
            user = claim_invite(form.cleaned_data["code"], form.save)
        except AccountError as exc:
            form.add_error("code", str(exc))
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("account")
    return render(request, "contest/join.html", {"form": form}, status=400)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The participant's API tokens (for `arena submit`) and e-mail."""
    return _account(request)


@login_required
@require_POST
def token_new(request: HttpRequest) -> HttpResponse:
    """A new API token, its secret shown on this page only, this once."""
    _, secret = ApiToken.issue(_user(request))
    return _account(request, secret=secret)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    """Revoke one of the participant's own tokens (another's is not found)."""
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])
    messages.success(request, f"token {token.digest[:8]} revoked")
    return redirect("account")


@login_required
@require_POST
def email(request: HttpRequest) -> HttpResponse:
    """Change where the site writes to the participant."""
    form = EmailForm(request.POST, instance=_user(request))
    if not form.is_valid():
        return _account(request, form=form, status=400)
    form.save()
    messages.success(request, "e-mail saved")
    return redirect("account")


class PasswordChange(PasswordChangeView):
    """Django's password change; a participant added by a roster sets a first password."""

    template_name = "contest/password.html"
    success_url = reverse_lazy("account")

    def get_form_class(self) -> type[SetPasswordForm[User]]:
        usable = _user(self.request).has_usable_password()
        return PasswordChangeForm if usable else SetPasswordForm

    def form_valid(self, form: SetPasswordForm[User]) -> HttpResponse:
        messages.success(self.request, "password saved")
        return super().form_valid(form)


def _user(request: HttpRequest) -> User:
    """The signed-in participant (the views above require one)."""
    assert isinstance(request.user, User)
    return request.user


def _account(request: HttpRequest, *, secret: str = "", form: EmailForm | None = None,
             status: int = 200) -> HttpResponse:
    user = _user(request)
    return render(request, "contest/account.html", {
        "tokens": user.tokens.order_by("-created"), "secret": secret,
        "email_form": form or EmailForm(instance=user)}, status=status)
