"""Accounts: tokens kept hashed and refused once revoked, one-time sign-in links, joining with
an invite code, the account page's tokens, e-mail and password, and CSRF on every form."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.site.contest import accounts
from arena.site.contest.contest import Contest
from arena.site.contest.models import ApiToken, Invite, digest


def csrf_post(client: Client, page: str, url: str, data: dict[str, str]) -> object:
    """POST as a browser does: the form's CSRF token taken from the page that shows it."""
    shown = client.get(page)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', shown.content.decode())
    assert token is not None, shown.content.decode()
    return client.post(url, {**data, "csrfmiddlewaretoken": token.group(1)})


# --- tokens ---------------------------------------------------------------------------------


def test_a_token_names_its_participant_and_is_kept_only_as_its_digest(
        contest: Contest, alice: User) -> None:
    row, secret = ApiToken.issue(alice)
    assert accounts.user_of_token(secret) == alice
    assert row.digest == digest(secret) and secret not in str(
        list(ApiToken.objects.values_list()))
    row.refresh_from_db()
    assert row.last_used is not None


def test_a_revoked_token_a_wrong_one_and_a_disabled_participant_s_are_refused(
        contest: Contest, alice: User, bob: User) -> None:
    _, secret = ApiToken.issue(alice)
    _, other = ApiToken.issue(bob)
    assert accounts.user_of_token(secret + "x") is None
    assert accounts.user_of_token("") is None
    assert accounts.revoke_tokens(alice) == 1
    assert accounts.user_of_token(secret) is None
    assert accounts.user_of_token(other) == bob
    bob.is_active = False
    bob.save()
    assert accounts.user_of_token(other) is None


# --- the account page -------------------------------------------------------------------------


def test_a_new_token_is_shown_once_and_works(signed_in: Client, alice: User) -> None:
    made = csrf_post(signed_in, "/account", "/account/tokens", {})
    assert made.status_code == 200  # type: ignore[attr-defined]
    secret = re.search(r'<code id="new-token">(arena_[^<]+)</code>',
                       made.content.decode())  # type: ignore[attr-defined]
    assert secret is not None
    assert accounts.user_of_token(secret.group(1)) == alice
    again = signed_in.get("/account").content.decode()
    assert secret.group(1) not in again and digest(secret.group(1))[:8] in again


def test_a_participant_revokes_their_own_token_and_not_another_s(
        signed_in: Client, alice: User, bob: User) -> None:
    mine, secret = ApiToken.issue(alice)
    theirs, other = ApiToken.issue(bob)
    refused = csrf_post(signed_in, "/account", f"/account/tokens/{theirs.pk}/revoke", {})
    assert refused.status_code == 404  # type: ignore[attr-defined]  # no id oracle
    assert accounts.user_of_token(other) == bob
    done = csrf_post(signed_in, "/account", f"/account/tokens/{mine.pk}/revoke", {})
    assert done.status_code == 302  # type: ignore[attr-defined]
    assert accounts.user_of_token(secret) is None


@pytest.mark.parametrize("url", ["/account/tokens", "/account/email", "/account/password"])
def test_the_account_s_forms_refuse_a_post_without_the_csrf_token(
        signed_in: Client, alice: User, url: str) -> None:
    ApiToken.issue(alice)
    assert signed_in.post(url, {"email": "x@example.org"}).status_code == 403
    assert ApiToken.objects.filter(user=alice).count() == 1
    alice.refresh_from_db()
    assert alice.email == ""


def test_the_account_page_needs_a_sign_in(contest: Contest, db: None) -> None:
    response = Client().get("/account")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_e_mail_is_saved_and_a_bad_one_refused(signed_in: Client, alice: User) -> None:
    bad = csrf_post(signed_in, "/account", "/account/email", {"email": "not an address"})
    assert bad.status_code == 400  # type: ignore[attr-defined]
    csrf_post(signed_in, "/account", "/account/email", {"email": "alice@example.org"})
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"


def test_a_participant_added_without_a_password_sets_one_and_signs_in_with_it(
        contest: Contest, db: None) -> None:
    carol = accounts.add_participant("carol")
    client = Client(enforce_csrf_checks=True)
    client.force_login(carol)
    page = "/account/password"
    done = csrf_post(client, page, page, {"new_password1": "a fresh long phrase 3",
                                          "new_password2": "a fresh long phrase 3"})
    assert done.status_code == 302  # type: ignore[attr-defined]
    assert Client().login(username="carol", password="a fresh long phrase 3")


def test_sign_in_with_a_password_on_the_login_page(contest: Contest, alice: User) -> None:
    client = Client(enforce_csrf_checks=True)
    done = csrf_post(client, "/login/", "/login/", {"username": "alice",
                                                   "password": "a long pass phrase 1"})
    assert done.status_code == 302  # type: ignore[attr-defined]
    assert client.get("/account").status_code == 200


# --- one-time sign-in links -------------------------------------------------------------------


def test_a_sign_in_link_signs_in_once_and_then_says_it_expired(contest: Contest, db: None) -> None:
    carol = accounts.add_participant("carol")
    link = accounts.sign_in_link(carol, "http://testserver").removeprefix("http://testserver")
    first = Client(enforce_csrf_checks=True)
    asked = first.get(link)  # a visit alone (a mail scanner's) spends nothing
    assert asked.status_code == 200 and "Sign in as carol" in asked.content.decode()
    assert first.get(link).status_code == 200
    signed = csrf_post(first, link, link, {})
    assert signed.status_code == 302  # type: ignore[attr-defined]
    assert first.get("/account").status_code == 200
    second = Client(enforce_csrf_checks=True)
    again = second.get(link)
    assert again.status_code == 410 and "expired" in again.content.decode()
    assert second.get("/account").status_code == 302


def test_a_forged_or_missing_link_signs_no_one_in(contest: Contest, db: None) -> None:
    accounts.add_participant("carol")
    for link in ("/login/link", "/login/link?sesame=AAAAAAAAAAAAAAAAAAAAAAAAAAAA"):
        assert Client().get(link).status_code == 410
        assert Client().post(link).status_code == 410


# --- joining with an invite code --------------------------------------------------------------


def join(client: Client, code: str, name: str = "dora") -> object:
    return csrf_post(client, "/join", "/join", {
        "code": code, "username": name, "email": "", "password1": "a long pass phrase 4",
        "password2": "a long pass phrase 4"})


def test_without_an_open_invite_there_is_no_join_page(contest: Contest, db: None) -> None:
    assert Client().get("/join").status_code == 404
    Invite.objects.create(digest=digest("gone"), active=False)
    assert Client().get("/join").status_code == 404


def test_an_invite_code_lets_someone_join_and_counts_its_use(contest: Contest, db: None) -> None:
    code = accounts.new_invite(2)
    client = Client(enforce_csrf_checks=True)
    joined = join(client, code)
    assert joined.status_code == 302  # type: ignore[attr-defined]
    assert client.get("/account").status_code == 200
    assert User.objects.get(username="dora").check_password("a long pass phrase 4")
    assert Invite.objects.get().uses == 1


@pytest.mark.parametrize(("make", "said"), [
    (lambda: "not-a-code", "that invite code is not one of this contest&#x27;s"),
    (lambda: _withdrawn(), "that invite code was withdrawn by the organiser"),
    (lambda: _used_up(), "that invite code is used up (1 of 1 places taken)"),
])
def test_a_bad_used_up_or_withdrawn_code_is_refused_with_one_line(
        contest: Contest, db: None, make: object, said: str) -> None:
    accounts.new_invite(None)  # the page is open: some other code is good
    refused = join(Client(enforce_csrf_checks=True), make())  # type: ignore[operator]
    assert refused.status_code == 400  # type: ignore[attr-defined]
    assert said in refused.content.decode()  # type: ignore[attr-defined]
    assert not User.objects.filter(username="dora").exists()


def _withdrawn() -> str:
    code = accounts.new_invite(None)
    Invite.objects.filter(digest=digest(code)).update(active=False)
    return code


def _used_up() -> str:
    code = accounts.new_invite(1)
    Invite.objects.filter(digest=digest(code)).update(uses=1)
    return code


def test_join_refuses_a_post_without_the_csrf_token(contest: Contest, db: None) -> None:
    code = accounts.new_invite(None)
    client = Client(enforce_csrf_checks=True)
    posted = client.post("/join", {"code": code, "username": "dora",
                                   "password1": "a long pass phrase 4",
                                   "password2": "a long pass phrase 4"})
    assert posted.status_code == 403
    assert not User.objects.filter(username="dora").exists()


@pytest.mark.parametrize(("name", "said"), [
    ("Alice", "the name &#x27;Alice&#x27; differs only in case from participant &#x27;alice"),
    ("honest", "the name &#x27;honest&#x27; is house entrant &#x27;honest&#x27;"),
    ("\u0430lice", "the name &#x27;\\u0430lice&#x27; starts with"),  # a Cyrillic a
])
def test_a_name_people_could_not_tell_apart_is_refused(
        contest: Contest, alice: User, name: str, said: str) -> None:
    refused = join(Client(enforce_csrf_checks=True), accounts.new_invite(None), name)
    assert said in refused.content.decode()  # type: ignore[attr-defined]
    assert Invite.objects.get().uses == 0
