"""The message catalogues: complete in every language, placeholders consistent, used safely."""

from __future__ import annotations

import pytest

from pi_reader.appliance.catalogue import (
    LANGUAGES,
    Catalogue,
    MessageValuesError,
    MissingMessage,
    UnknownLanguage,
    placeholders,
)

ENGLISH = Catalogue.load("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_key_with_the_same_placeholders(language: str) -> None:
    catalogue = Catalogue.load(language)
    assert set(catalogue.texts) == set(ENGLISH.texts)
    for key, text in ENGLISH.texts.items():
        assert placeholders(catalogue.texts[key]) == placeholders(text), key
        assert catalogue.texts[key].strip(), f"{language}: {key} is empty"


def test_fills_placeholders_and_capitalises_the_sentence() -> None:
    die = ENGLISH.word("die_object.red")
    assert ENGLISH.text("lock.take_out", die_object=die) == "Take the red die out."
    assert ENGLISH.text("problem.missing_die", die=ENGLISH.word("die.blue")) == (
        "The blue die is missing."
    )


def test_wrong_values_are_refused_with_the_expected_names() -> None:
    with pytest.raises(MessageValuesError, match=r"\['sum'\]"):
        ENGLISH.text("roll.white_sum", total=7)


def test_unknown_key_and_language() -> None:
    with pytest.raises(MissingMessage, match=r"no message 'roll\.nope'"):
        ENGLISH.text("roll.nope")
    with pytest.raises(UnknownLanguage, match="choose one of en, ru"):
        Catalogue.load("xx")


@pytest.mark.parametrize(
    ("names", "expected"),
    [([], ""), (["ann"], "ann"), (["ann", "bob"], "ann and bob"), (["a", "b", "c"], "a, b and c")],
)
def test_join_names(names: list[str], expected: str) -> None:
    assert ENGLISH.join(names) == expected


def test_join_in_persian_uses_the_persian_comma() -> None:
    assert Catalogue.load("fa").join(["a", "b", "c"]) == "a، b و c"
