"""The packages to install, found by setuptools rather than listed by hand (a package left off
a list is missing from every wheel, as arena.checkbot once was): arena's own, and the built-in
bots' folder bots/ installed as arena_bots (package-dir in pyproject.toml), so that a user's
own folder named bots/ can never shadow them. pyproject.toml's `packages.find` cannot do this
renaming, hence this file; everything else is configured there."""

from setuptools import find_packages, setup

BOTS = ["arena_bots" + name.removeprefix("bots")
        for name in find_packages(include=["bots", "bots.*"])]
"""bots/ and any package folder in it, under the name arena_bots (bots/examples has no
__init__.py: the example command bots are copied from the repository, never imported)."""

setup(packages=[*find_packages(include=["arena", "arena.*"]), *BOTS])
