"""Descriptions: the tool's from the docstring summary, parameters' from Google/NumPy/reST."""

from typing import Annotated, Any

import pytest

from prism.core import ToolDefinition
from prism.core._docstrings import docstring_params, docstring_summary
from prism.core.functions import tool


def descriptions(definition: ToolDefinition) -> dict[str, Any]:
    assert definition.parameters is not None
    properties = definition.parameters["properties"]
    assert isinstance(properties, dict)
    return {name: schema.get("description") for name, schema in properties.items()}


def google(query: str, limit: int = 10, *, exact: bool = False) -> None:
    """Search the documentation.

    Finds pages whose text matches the query.

    Args:
        query: What to look for. Words are
            matched case-insensitively.
        limit (int, optional): How many results at most.
        exact: Match the whole phrase.

    Returns:
        The matching pages.
    """


def numpy(query: str, limit: int = 10, *, exact: bool = False) -> None:
    """Search the documentation.

    Parameters
    ----------
    query : str
        What to look for. Words are
        matched case-insensitively.
    limit : int, optional
        How many results at most.
    exact
        Match the whole phrase.

    Returns
    -------
    list
        The matching pages.
    """


def rest(query: str, limit: int = 10, *, exact: bool = False) -> None:
    """Search the documentation.

    :param query: What to look for. Words are
        matched case-insensitively.
    :param int limit: How many results at most.
    :type limit: int
    :param exact: Match the whole phrase.
    :returns: The matching pages.
    """


EXPECTED = {
    "query": "What to look for. Words are matched case-insensitively.",
    "limit": "How many results at most.",
    "exact": "Match the whole phrase.",
}


@pytest.mark.parametrize("fn", [google, numpy, rest], ids=["google", "numpy", "rest"])
def test_parameter_descriptions_come_from_each_docstring_style(fn: Any) -> None:
    definition = tool(fn)
    assert definition.description == "Search the documentation."
    assert descriptions(definition) == EXPECTED


def test_summary_is_the_first_paragraph_joined_into_one_line() -> None:
    doc = """Look things
    up quickly.

    More detail here.
    """
    assert docstring_summary(doc) == "Look things up quickly."
    assert docstring_summary("Args:\n    x: y") is None
    assert docstring_summary(":param x: y") is None
    assert docstring_summary("Parameters\n----------\nx : int\n") is None
    assert docstring_summary("") is None
    assert docstring_summary(None) is None


def test_a_summary_stops_at_a_section_without_a_blank_line() -> None:
    assert docstring_summary("Do it.\nArgs:\n    x: y") == "Do it."
    assert docstring_params("Do it.\nArgs:\n    x: y") == {"x": "y"}


def test_an_explicit_description_wins_over_the_docstring() -> None:
    assert tool(google, description="Custom.").description == "Custom."
    assert tool(google, description="").description == ""


def test_no_docstring_means_no_descriptions() -> None:
    def bare(x: int) -> None: ...

    definition = tool(bare)
    assert definition.description is None
    assert descriptions(definition) == {"x": None}


def test_annotated_description_wins_over_the_docstring() -> None:
    def fn(x: Annotated[int, "From Annotated."], y: int) -> None:
        """Do it.

        Args:
            x: From the docstring.
            y: Only in the docstring.
        """

    assert descriptions(tool(fn)) == {"x": "From Annotated.", "y": "Only in the docstring."}


def test_docstring_entries_for_unknown_names_are_ignored() -> None:
    def fn(x: int) -> None:
        """Do it.

        Args:
            x: Known.
            ghost: Not a parameter.
        """

    assert descriptions(tool(fn)) == {"x": "Known."}


def test_google_sections_end_at_the_next_header() -> None:
    doc = """Summary.

    Args:
        a: First.
        b: Second,
            continued.

    Raises:
        ValueError: never a parameter.
    """
    assert docstring_params(doc) == {"a": "First.", "b": "Second, continued."}


def test_numpy_lists_several_names_in_one_entry() -> None:
    doc = """Summary.

    Parameters
    ----------
    x, y : float
        Coordinates.
    """
    assert docstring_params(doc) == {"x": "Coordinates.", "y": "Coordinates."}


def test_methods_and_async_functions_are_documented_too() -> None:
    class Library:
        def find(self, title: str) -> str:
            """Find a book.

            Args:
                title: The book's title.
            """
            return title

    async def fetch(url: str) -> str:
        """Fetch a page.

        :param url: Where it lives.
        """
        return url

    method = tool(Library().find)
    assert method.description == "Find a book."
    assert descriptions(method) == {"title": "The book's title."}
    assert descriptions(tool(fetch)) == {"url": "Where it lives."}
