"""Message catalogues: every text the appliance says or shows, one TOML file per language.

Texts live in ``pi_reader/appliance/messages/<language>.toml`` with named ``{placeholders}``, so
a translator edits one file and never code. Keys are ``section.name`` (``roll.white_sum``).
Values for placeholders are formatted as given; numbers stay digits, which espeak-ng says in
the voice's own language.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

LANGUAGES: tuple[str, ...] = ("en", "ru", "uk", "es", "de", "fa")
DEFAULT_LANGUAGE = "en"
_FRAGMENT_STARTS = ("{die", "{row", "{colour")


class UnknownLanguage(ValueError):
    """No catalogue exists for the language asked for."""


class MissingMessage(KeyError):
    """A key that the catalogue does not have (a bug in the caller or a broken catalogue)."""


class MessageValuesError(ValueError):
    """The values given do not match the message's placeholders."""


def _flatten(table: Mapping[str, object], prefix: str = "") -> dict[str, str]:
    texts: dict[str, str] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            texts.update(_flatten(value, f"{key}."))
        elif isinstance(value, str):
            texts[key] = value
        else:
            raise ValueError(f"message {key!r} must be text, not {type(value).__name__}")
    return texts


def placeholders(text: str) -> frozenset[str]:
    """The named placeholders of a message text."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


@dataclass(frozen=True)
class Catalogue:
    """The texts of one language."""

    language: str
    texts: Mapping[str, str]

    @classmethod
    def load(cls, language: str = DEFAULT_LANGUAGE) -> Catalogue:
        if language not in LANGUAGES:
            raise UnknownLanguage(
                f"no messages for language {language!r}; choose one of {', '.join(LANGUAGES)}"
            )
        source = resources.files("pi_reader.appliance") / "messages" / f"{language}.toml"
        return cls(language, _flatten(tomllib.loads(source.read_text(encoding="utf-8"))))

    def text(self, key: str, **values: object) -> str:
        """The message ``key`` with its placeholders filled.

        A sentence that starts with a fragment ("the red die is missing") gets its first letter
        made upper case; names of players are left as they were typed.
        """
        try:
            template = self.texts[key]
        except KeyError:
            raise MissingMessage(f"no message {key!r} in the {self.language} catalogue") from None
        expected = placeholders(template)
        if expected != set(values):
            raise MessageValuesError(
                f"message {key!r} takes {sorted(expected)}, was given {sorted(values)}"
            )
        filled = template.format(**values)
        if template.startswith(_FRAGMENT_STARTS):
            return filled[:1].upper() + filled[1:]
        return filled

    def word(self, key: str) -> str:
        """A fragment used inside other messages (a colour, a die), kept as written."""
        try:
            return self.texts[key]
        except KeyError:
            raise MissingMessage(f"no message {key!r} in the {self.language} catalogue") from None

    def join(self, items: Iterable[str]) -> str:
        """``ann, bob and cid`` in this language."""
        names = list(items)
        if len(names) <= 1:
            return "".join(names)
        head = self.word("list.separator").join(names[:-1])
        return self.word("list.and").format(first=head, last=names[-1])
