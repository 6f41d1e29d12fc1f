"""lean_textual.cached_lines: lines drawn once, and finished rows kept by what they show, drawing
exactly what Textual's own styles cache draws."""

from __future__ import annotations

from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.content import Content
from textual.strip import Strip

from lean_textual import cached_lines, styles
from lean_textual.cached_lines import CachedLines
from tui.board import Lines


class Log(CachedLines):
    DEFAULT_CSS = """
    Log { height: 8; border: round $primary; padding: 0 1; background: $surface; }
    Log.-alert { border: heavy red; background: darkred; }
    Log.-edge { border: round red; }
    """


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Log()


Drawn = list[list[tuple[str, object]]]


def segments(strips: list[Strip]) -> Drawn:
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def finished(widget: CachedLines) -> Drawn:
    return segments(widget.render_lines(widget.outer_size.region))


def as_textual_draws(widget: CachedLines) -> Drawn:
    return segments(StylesCache().render_widget(widget, widget.outer_size.region))


LINES = [Content.from_markup(f"[b]{n}[/b] the duck said [i]quack[/i] {'!' * (n % 4)}")
         for n in range(40)]


async def test_scrolling_rows_are_kept_by_content_and_drawn_as_textual_draws() -> None:
    async with LogApp().run_test(size=(40, 12)) as pilot:
        log = pilot.app.query_one(Log)
        made = [0]
        render_line = StylesCache.render_line

        def counted(*args: object) -> Strip:
            made[0] += 1
            return render_line(*args)  # type: ignore[arg-type]

        StylesCache.render_line = counted  # type: ignore[method-assign]
        try:
            for start in range(12):
                log.show_contents(LINES[start:start + 6])
                assert finished(log) == as_textual_draws(log)
            log.show_contents(LINES[20:26])
            finished(log)
            made[0] = 0
            log.show_contents(LINES[21:27])  # scrolled by one: one new row
            finished(log)
            assert made[0] == 1
        finally:
            StylesCache.render_line = render_line  # type: ignore[method-assign]


async def test_a_style_change_finishes_every_row_again() -> None:
    async with LogApp().run_test(size=(40, 12)) as pilot:
        log = pilot.app.query_one(Log)
        log.show_contents(LINES[:6])
        await pilot.pause()
        before = finished(log)
        log.add_class("-alert")
        await pilot.pause()
        after = finished(log)
        assert after != before
        assert after == as_textual_draws(log)


async def test_kept_rows_are_bounded_for_the_process(monkeypatch) -> None:
    monkeypatch.setattr(cached_lines, "SHARED_ROWS_MAX", 10)
    monkeypatch.setattr(cached_lines, "_shared_rows", {})
    async with LogApp().run_test(size=(40, 12)) as pilot:
        log = pilot.app.query_one(Log)
        for start in range(30):
            log.show_contents(LINES[start:start + 6])
            assert finished(log) == as_textual_draws(log)
            assert len(cached_lines._shared_rows) <= 10


class TwoLogs(App[None]):
    def compose(self) -> ComposeResult:
        yield Log(id="one")
        yield Log(id="two")
        yield Log(id="three", classes="-edge")


async def test_widgets_styled_alike_share_finished_rows_and_others_do_not() -> None:
    """Two seats finish a row once between them; a widget with another border colour
    (nothing else differs) finishes its own, as Textual draws it."""
    async with TwoLogs().run_test(size=(40, 30)) as pilot:
        one, two, three = (pilot.app.query_one(f"#{name}", Log)
                           for name in ("one", "two", "three"))
        for log in (one, two, three):
            log.show_contents(LINES[:6])
        await pilot.pause()
        rows = [log.render_lines(log.outer_size.region) for log in (one, two, three)]
        gutter = one.styles.gutter.top
        content = slice(gutter, gutter + one.content_size.height)
        assert all(a is b for a, b in zip(rows[0][content], rows[1][content], strict=True))
        assert not any(a is c for a, c in zip(rows[0], rows[2], strict=True))
        assert segments(rows[2]) == as_textual_draws(three)
        assert segments(rows[1]) == as_textual_draws(two)


async def test_rows_are_drawn_again_at_a_new_width() -> None:
    async with LogApp().run_test(size=(40, 12)) as pilot:
        log = pilot.app.query_one(Log)
        log.show_contents(LINES[:6])
        await pilot.pause()
        await pilot.resize_terminal(30, 12)
        await pilot.pause()
        assert finished(log) == as_textual_draws(log)
        assert all(len("".join(text for text, _ in row)) == 30
                   for row in finished(log))


class Tinted(Lines):
    DEFAULT_CSS = """
    Tinted { height: 3; }
    Tinted > .lines--key { color: #00ff00; }
    Tinted.-alert > .lines--key { color: #ff0000; }
    """


class TintedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Tinted()


async def test_a_line_made_before_a_style_change_is_made_again_in_the_new_colours() -> None:
    async with TintedApp().run_test(size=(40, 6)) as pilot:
        lines = pilot.app.query_one(Tinted)
        press = (("press ", ""), ("g", "key"))
        lines.lines = (press,)
        await pilot.pause()

        def key_colour() -> str:
            return str(lines._contents[0].spans[0].style.foreground)  # type: ignore[union-attr]

        assert key_colour() == "Color(0, 255, 0)"
        lines.add_class("-alert")
        await pilot.pause()
        lines.lines = (press, (("then ", ""), ("s", "key")))
        await pilot.pause()
        assert key_colour() == "Color(255, 0, 0)"


async def test_a_restyled_widget_reads_its_place_once_for_all_its_component_classes(
        monkeypatch) -> None:
    """The key of a component style is the widget's path from the app down, as the rules
    test it: read once per style change for every role a widget's lines use (a focus
    moving restyles the grid, and it read its path again for each of its roles)."""
    read: list[object] = []
    match_key = styles._match_key

    def counted(stylesheet: object, node: object, memo: object = None) -> object:
        if isinstance(node, Tinted):  # (a style not seen before styles a node of its own)
            read.append(node)
        return match_key(stylesheet, node, memo)  # type: ignore[arg-type]

    monkeypatch.setattr(styles, "_match_key", counted)
    async with TintedApp().run_test(size=(40, 6)) as pilot:
        lines = pilot.app.query_one(Tinted)
        roles = tuple((f"{role} ", role) for role in ("key", "name", "dim", "warn"))
        read.clear()
        lines.lines = (roles,)  # the roles' styles are looked up as the lines are made
        assert read == [lines]
        lines.add_class("-alert")
        await pilot.pause()
        read.clear()
        lines.lines = (roles, (("again", "key"),))
        assert read == [lines]
        assert str(lines._contents[1].spans[0].style.foreground) == "Color(255, 0, 0)"
