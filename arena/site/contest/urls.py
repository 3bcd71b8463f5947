"""The contest's addresses: pages, the leaderboard, bots, games, uploads and the API."""

from __future__ import annotations

from django.urls import path

from arena.site.contest import accounts, views

urlpatterns = [
    path("", views.home, name="home"),
    # accounts: a one-time link, joining with an invite code, tokens, e-mail and password
    path("login/link", accounts.SignInLink.as_view(), name="login-link"),
    path("join", accounts.join, name="join"),
    path("account", accounts.account, name="account"),
    path("account/tokens", accounts.token_new, name="token-new"),
    path("account/tokens/<int:pk>/revoke", accounts.token_revoke, name="token-revoke"),
    path("account/email", accounts.email, name="account-email"),
    path("account/password", accounts.PasswordChange.as_view(), name="password-change"),
]
