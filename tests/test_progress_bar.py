"""flowstate.cli.progress_bar: the one progress bar of `run`, `reproduce` and `sweep`."""

import io

from flowstate.cli.progress_bar import progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_terminal_gets_no_bar_and_no_output():
    stream = io.StringIO()
    with progress_bar(stream, "simulating", 3) as update:
        assert update is None
    assert stream.getvalue() == ""


def test_a_terminal_gets_an_update_callable_that_draws_the_label():
    stream = Terminal()
    with progress_bar(stream, "sweeping") as update:
        assert update is not None
        update(0, 4)
        update(4, 4)
    assert "sweeping" in stream.getvalue()
