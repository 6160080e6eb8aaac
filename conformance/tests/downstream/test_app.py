"""The host project's own tests; the plugin adds the threat rows beside them."""


def test_the_app_works() -> None:
    assert "prism".upper() == "PRISM"
