"""`ssdlab profiles` and `ssdlab profile show`: the built-in profiles and one profile's TOML."""

from __future__ import annotations

import tomllib

import click

from ssdlab.cli.app import OVERRIDES, cli, fail, profile_input
from ssdlab.drive import DEFAULT_PROFILE, profile_names, profile_source
from ssdlab.errors import SsdlabError


@cli.command("profiles")
def profiles_command() -> None:
    """List the built-in drive profiles."""
    for name in profile_names():
        model = tomllib.loads(profile_source(name))["drive"]["model"]
        marker = " (default)" if name == DEFAULT_PROFILE else ""
        click.echo(f"{name + marker:<28} {model}")


@cli.group("profile")
def profile_group() -> None:
    """Inspect profiles."""


@profile_group.command("show")
@click.argument("name")
@OVERRIDES
def profile_show(name: str, overrides: tuple[str, ...]) -> None:
    """Print a profile's TOML (built-in NAME or a path)."""
    try:
        profile_input(name, "PROFILE")
        click.echo(profile_source(name, overrides), nl=False)
    except SsdlabError as error:
        fail(str(error))
