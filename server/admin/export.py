"""``mission-impractical export CODE [N] --format json|md``: a finished game, written out.

``json`` is the auditable log (one record a line, as ``simulate --json``: see
:mod:`engine.audit`); ``md`` a Markdown transcript to share in a chat
(:mod:`engine.transcript`). Both come from :func:`engine.replay.load_replay`, on a read-only
connection: it works while the server runs on the same data directory, and the server's
writes go on meanwhile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from engine.records import Records
from engine.replay import ReplayError, find_game, load_replay
from engine.transcript import markdown
from server.admin.tools import HostToolError, _read_only

FORMATS = ("json", "md")


def export(data_dir: Path, code: str, game_no: int | None, fmt: str, out: TextIO) -> int:
    """Write game ``game_no`` of table ``code`` (its last finished one if None) to ``out``
    as ``fmt``; raises :class:`HostToolError` when there is no such game to show."""
    db = _read_only(data_dir)
    try:
        replay = load_replay(db, find_game(Records(db), code, game_no))
    except ReplayError as error:
        raise HostToolError(str(error)) from None
    finally:
        db.close()
    if fmt == "md":
        out.write(markdown(replay))
    else:
        for record in replay.records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0
